// The NCCL engine: non-blocking communicators with a deadline, collectives on CUDA streams timed with
// CUDA events, and on-device data checks. Serves one rank (process mode) or all local GPUs (--threads).
#include <cuda_runtime_api.h>

#include <thread>

#include "comm/engine.h"
#include "comm/kernels_cuda.h"
#include "comm/nccl_api_cuda.h"

namespace dd::comm {

namespace {

using rendezvous::Clock;
using rendezvous::Deadline;

ncclDataType_t nccl_type(Dtype t) {
  switch (t) {
    case Dtype::f32:
      return ncclFloat32;
    case Dtype::bf16:
      return ncclBfloat16;
    case Dtype::f16:
      return ncclFloat16;
    case Dtype::i32:
      return ncclInt32;
  }
  return ncclFloat32;
}

std::string cuda_msg(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

struct Local {
  int rank = 0, dev = 0;
  void* send_reg = nullptr;  // ncclCommRegister handles (--register)
  void* recv_reg = nullptr;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  char* send = nullptr;
  char* recv = nullptr;
  size_t send_cap = 0, recv_cap = 0;
  unsigned long long* d_wrong = nullptr;
};

class NcclEngine : public Engine {
 public:
  const char* name() const override { return "nccl"; }
  std::string describe() const override {
    return api_ ? "NCCL " + api_->version_string() + " (" + api_->path + ")" : "NCCL (not loaded)";
  }

  ~NcclEngine() override {
    for (auto& l : locals_) {
      if (l.comm) {
        if (aborted_)
          api_->ncclCommAbort(l.comm);
        else
          api_->ncclCommDestroy(l.comm);
      }
      cudaSetDevice(l.dev);
      if (l.send) cudaFree(l.send);
      if (l.recv) cudaFree(l.recv);
      if (l.d_wrong) cudaFree(l.d_wrong);
    }
  }

  Status init(const EngineConfig& cfg) override {
    auto api = load_nccl(cfg.nccl_lib);
    if (!api) return api.error();
    api_ = *api;
    world_ = cfg.world;
    register_ = cfg.register_buffers && api_->ncclCommRegister && api_->ncclCommDeregister;
    graph_ = cfg.cuda_graph;
    ncclUniqueId id{};
    const std::string key = cfg.prefix + "nccl_unique_id";
    bool root_here = false;
    for (int r : cfg.ranks) root_here |= r == 0;
    if (root_here) {
      ncclResult_t rc = api_->ncclGetUniqueId(&id);
      if (rc != ncclSuccess)
        return Error{std::string("ncclGetUniqueId failed: ") + api_->ncclGetErrorString(rc) +
                     " (NCCL found no usable bootstrap interface? see NCCL_SOCKET_IFNAME)"};
      if (cfg.store) {
        auto st = cfg.store->set(key, std::string(id.internal, sizeof(id.internal)), cfg.init_deadline);
        if (!st) return Error{"publish NCCL unique id: " + st.error().message()};
      }
    } else {
      if (!cfg.store) return Error{"no store to fetch the NCCL unique id from"};
      auto v = cfg.store->get(key, cfg.init_deadline);
      if (!v) return Error{"waiting for rank 0's NCCL unique id: " + v.error().message()};
      if (v->size() != sizeof(id.internal)) return Error{"NCCL unique id in the store has the wrong size"};
      std::memcpy(id.internal, v->data(), sizeof(id.internal));
    }
    int ndev = 0;
    cudaError_t ce = cudaGetDeviceCount(&ndev);
    if (ce != cudaSuccess) return Error{"cudaGetDeviceCount: " + cuda_msg(ce)};
    locals_.resize(cfg.ranks.size());
    for (size_t i = 0; i < cfg.ranks.size(); ++i) {
      Local& l = locals_[i];
      l.rank = cfg.ranks[i];
      l.dev = i < cfg.devices.size() ? cfg.devices[i] : int(i);
      if (l.dev >= ndev) {
        const char* cvd = std::getenv("CUDA_VISIBLE_DEVICES");
        return Error{"rank " + std::to_string(l.rank) + " needs CUDA device " + std::to_string(l.dev) +
                     " but only " + std::to_string(ndev) + " GPU(s) are visible" +
                     (cvd ? std::string(" (CUDA_VISIBLE_DEVICES=") + cvd + ")" : std::string())};
      }
      if ((ce = cudaSetDevice(l.dev)) != cudaSuccess) return Error{"cudaSetDevice: " + cuda_msg(ce)};
      if ((ce = cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking)) != cudaSuccess)
        return Error{"cudaStreamCreate on GPU " + std::to_string(l.dev) + ": " + cuda_msg(ce)};
      cudaEventCreate(&l.start);
      cudaEventCreate(&l.stop);
      if ((ce = cudaMalloc(&l.d_wrong, sizeof(unsigned long long))) != cudaSuccess)
        return Error{"cudaMalloc on GPU " + std::to_string(l.dev) + ": " + cuda_msg(ce)};
    }
    bool group = locals_.size() > 1;
    if (group) api_->ncclGroupStart();
    for (auto& l : locals_) {
      cudaSetDevice(l.dev);
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      config.blocking = 0;
      ncclResult_t rc = api_->ncclCommInitRankConfig(&l.comm, world_, id, l.rank, &config);
      if (rc != ncclSuccess && rc != ncclInProgress) {
        if (group) api_->ncclGroupEnd();
        return nccl_error("ncclCommInitRank (rank " + std::to_string(l.rank) + ")", rc, &l);
      }
    }
    if (group) {
      ncclResult_t rc = api_->ncclGroupEnd();
      if (rc != ncclSuccess && rc != ncclInProgress) return nccl_error("ncclGroupEnd (init)", rc, nullptr);
    }
    return settle(cfg.init_deadline, "communicator init");
  }

  Result<std::vector<RankResult>> run(const OpRequest& req) override {
    const CollInfo& info = coll_info(req.coll);
    const size_t es = dtype_size(req.dtype);
    Deadline deadline = Clock::now() + req.timeout;
    std::vector<RankResult> out;
    std::vector<Local*> active;
    for (auto& l : locals_) {
      RankResult rr;
      rr.rank = l.rank;
      if (req.pair_a >= 0 && l.rank != req.pair_a && l.rank != req.pair_b) {
        rr.participated = false;
      } else {
        active.push_back(&l);
        Sizing s = info.size(req.bytes, es, world_, l.rank);
        if (auto st = ensure(l, s.send_count * es, s.recv_count * es); !st) return st.error();
      }
      out.push_back(rr);
    }
    if (active.empty()) return out;
    if (req.check) {
      for (Local* l : active) {
        Sizing s = info.size(req.bytes, es, world_, l->rank);
        cudaSetDevice(l->dev);
        char* sendp = req.in_place ? l->recv + s.inplace_send_offset * es : l->send;
        uint64_t in_count = req.in_place && req.coll == Coll::all_gather ? s.chunk : s.send_count;
        cudaError_t e = launch_fill_const(req.dtype, l->recv, s.recv_count, kPoison, l->stream);
        if (e == cudaSuccess) e = launch_fill_input(req.dtype, sendp, in_count, req.coll, l->rank, l->stream);
        if (e == cudaSuccess) e = cudaMemsetAsync(l->d_wrong, 0, sizeof(unsigned long long), l->stream);
        if (e != cudaSuccess)
          return Error{"preparing data on GPU " + std::to_string(l->dev) + ": " + cuda_msg(e)};
      }
      if (auto st = launch(req, active, 1, deadline); !st) return st.error();
      for (size_t i = 0; i < active.size(); ++i) {
        Local* l = active[i];
        Sizing s = info.size(req.bytes, es, world_, l->rank);
        ExpectCtx x{req.coll, l->rank, world_, req.root, 0, s.chunk};
        x.peer = req.pair_a >= 0 ? (l->rank == req.pair_a ? req.pair_b : req.pair_a)
                                 : (l->rank - 1 + world_) % world_;
        cudaSetDevice(l->dev);
        const char* checkp = l->recv + (req.in_place ? s.inplace_check_offset * es : 0);
        if (req.corrupt) launch_fill_const(req.dtype, const_cast<char*>(checkp), 1, kPoison, l->stream);
        cudaError_t e = launch_check(req.dtype, checkp, s.check_count, x, l->d_wrong, l->stream);
        if (e != cudaSuccess)
          return Error{"check kernel on GPU " + std::to_string(l->dev) + ": " + cuda_msg(e)};
      }
      if (auto st = wait(active, deadline, "data check"); !st) return st.error();
      for (Local* l : active) {
        unsigned long long wrong = 0;
        cudaSetDevice(l->dev);
        cudaMemcpy(&wrong, l->d_wrong, sizeof(wrong), cudaMemcpyDeviceToHost);
        for (auto& rr : out)
          if (rr.rank == l->rank) {
            rr.wrong = int64_t(wrong);
            bool root_only = req.coll == Coll::reduce && l->rank != req.root;
            rr.checked = root_only ? 0 : int64_t(info.size(req.bytes, es, world_, l->rank).check_count);
          }
      }
    }
    if (req.warmup > 0)
      if (auto st = launch(req, active, req.warmup, deadline); !st) return st.error();
    if (graph_) {
      if (auto st = launch_graph(req, active, deadline); !st) return st.error();
    } else {
      for (Local* l : active) {
        cudaSetDevice(l->dev);
        cudaEventRecord(l->start, l->stream);
      }
      if (auto st = launch(req, active, req.iters, deadline, /*record_stop=*/true); !st) return st.error();
    }
    for (Local* l : active) {
      float ms = 0;
      cudaEventElapsedTime(&ms, l->start, l->stop);
      for (auto& rr : out)
        if (rr.rank == l->rank) rr.time_us = req.iters > 0 ? ms * 1000.0 / req.iters : 0;
    }
    return out;
  }

 private:
  Error nccl_error(const std::string& what, ncclResult_t rc, Local* l) {
    std::string msg = what + ": " + api_->ncclGetErrorString(rc);
    if (api_->ncclGetLastError) {
      const char* last = api_->ncclGetLastError(l ? l->comm : nullptr);
      if (last && *last) msg += " — " + std::string(last);
    }
    return Error{msg};
  }

  void abort_all() {
    aborted_ = true;
    for (auto& l : locals_)
      if (l.comm) api_->ncclCommAbort(l.comm);
    for (auto& l : locals_) l.comm = nullptr;
  }

  // Polls every communicator until none is in progress; aborts on error or deadline.
  Status settle(Deadline deadline, const char* what) {
    for (int spins = 0;;) {
      bool busy = false;
      for (auto& l : locals_) {
        ncclResult_t st = ncclSuccess;
        ncclResult_t rc = api_->ncclCommGetAsyncError(l.comm, &st);
        if (rc != ncclSuccess) st = rc;
        if (st == ncclInProgress) {
          busy = true;
        } else if (st != ncclSuccess) {
          Error e = nccl_error(std::string(what) + " failed on rank " + std::to_string(l.rank), st, &l);
          abort_all();
          return e;
        }
      }
      if (!busy) return ok_status();
      if (Clock::now() > deadline) {
        abort_all();
        return Error{std::string(what) +
                     " did not finish before the deadline (ncclInProgress); communicator aborted"};
      }
      if (++spins < 2000)
        std::this_thread::yield();  // enqueue usually settles within microseconds
      else
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  Status ensure(Local& l, size_t send_bytes, size_t recv_bytes) {
    cudaSetDevice(l.dev);
    auto grow = [&](char*& p, size_t& cap, void*& reg, size_t need) -> Status {
      if (need <= cap) return ok_status();
      if (reg) api_->ncclCommDeregister(l.comm, reg);
      reg = nullptr;
      if (p) cudaFree(p);
      p = nullptr;
      cap = 0;
      cudaError_t e = cudaMalloc(&p, need);
      if (e != cudaSuccess)
        return Error{"cudaMalloc(" + std::to_string(need) + ") on GPU " + std::to_string(l.dev) + ": " +
                     cuda_msg(e)};
      cap = need;
      if (register_) {
        ncclResult_t rc = api_->ncclCommRegister(l.comm, p, need, &reg);
        if (rc == ncclInProgress) rc = ncclSuccess;
        if (rc != ncclSuccess) return nccl_error("ncclCommRegister", rc, &l);
      }
      return ok_status();
    };
    if (auto st = grow(l.send, l.send_cap, l.send_reg, std::max<size_t>(send_bytes, 256)); !st) return st;
    return grow(l.recv, l.recv_cap, l.recv_reg, std::max<size_t>(recv_bytes, 256));
  }

  ncclResult_t issue(const OpRequest& req, Local& l) {
    const CollInfo& info = coll_info(req.coll);
    const size_t es = dtype_size(req.dtype);
    Sizing s = info.size(req.bytes, es, world_, l.rank);
    ncclDataType_t dt = nccl_type(req.dtype);
    const char* sendp = req.in_place ? l.recv + s.inplace_send_offset * es : l.send;
    char* recvp = l.recv;
    switch (req.coll) {
      case Coll::all_reduce:
        return api_->ncclAllReduce(sendp, recvp, s.send_count, dt, ncclSum, l.comm, l.stream);
      case Coll::all_gather:
        return api_->ncclAllGather(sendp, recvp, s.chunk, dt, l.comm, l.stream);
      case Coll::reduce_scatter:
        recvp = l.recv + (req.in_place ? s.inplace_check_offset * es : 0);
        return api_->ncclReduceScatter(sendp, recvp, s.chunk, dt, ncclSum, l.comm, l.stream);
      case Coll::broadcast:
        return api_->ncclBroadcast(sendp, recvp, s.send_count, dt, req.root, l.comm, l.stream);
      case Coll::reduce:
        return api_->ncclReduce(sendp, recvp, s.send_count, dt, ncclSum, req.root, l.comm, l.stream);
      case Coll::alltoall: {
        ncclResult_t rc = api_->ncclGroupStart();
        for (int p = 0; p < world_ && rc == ncclSuccess; ++p) {
          rc = api_->ncclSend(sendp + p * s.chunk * es, s.chunk, dt, p, l.comm, l.stream);
          if (rc == ncclSuccess || rc == ncclInProgress)
            rc = api_->ncclRecv(recvp + p * s.chunk * es, s.chunk, dt, p, l.comm, l.stream);
          if (rc == ncclInProgress) rc = ncclSuccess;
        }
        ncclResult_t rc2 = api_->ncclGroupEnd();
        return rc != ncclSuccess ? rc : rc2;
      }
      case Coll::sendrecv: {
        int to = (l.rank + 1) % world_, from = (l.rank - 1 + world_) % world_;
        if (req.pair_a >= 0) to = from = l.rank == req.pair_a ? req.pair_b : req.pair_a;
        ncclResult_t rc = api_->ncclGroupStart();
        if (rc == ncclSuccess) rc = api_->ncclSend(sendp, s.send_count, dt, to, l.comm, l.stream);
        if (rc == ncclSuccess || rc == ncclInProgress)
          rc = api_->ncclRecv(recvp, s.send_count, dt, from, l.comm, l.stream);
        if (rc == ncclInProgress) rc = ncclSuccess;
        ncclResult_t rc2 = api_->ncclGroupEnd();
        return rc != ncclSuccess ? rc : rc2;
      }
    }
    return ncclInvalidArgument;
  }

  // Issues `n` back-to-back runs of the collective on every active rank, then waits for the streams.
  Status launch(const OpRequest& req, const std::vector<Local*>& active, int n, Deadline deadline,
                bool record_stop = false) {
    if (auto st = enqueue(req, active, n, deadline); !st) return st;
    if (record_stop)
      for (Local* l : active) {
        cudaSetDevice(l->dev);
        cudaEventRecord(l->stop, l->stream);
      }
    return wait(active, deadline, coll_info(req.coll).name);
  }

  // Timed runs captured once into a CUDA graph per stream (--cuda-graph), then launched as one.
  Status launch_graph(const OpRequest& req, const std::vector<Local*>& active, Deadline deadline) {
    std::vector<cudaGraphExec_t> execs(active.size(), nullptr);
    for (Local* l : active) {
      cudaSetDevice(l->dev);
      cudaError_t e = cudaStreamBeginCapture(l->stream, cudaStreamCaptureModeThreadLocal);
      if (e != cudaSuccess) return Error{"cudaStreamBeginCapture: " + cuda_msg(e)};
    }
    Status st = enqueue(req, active, req.iters, deadline);
    for (size_t i = 0; i < active.size(); ++i) {
      cudaSetDevice(active[i]->dev);
      cudaGraph_t g = nullptr;
      cudaError_t e = cudaStreamEndCapture(active[i]->stream, &g);
      if (e == cudaSuccess && st.ok()) e = cudaGraphInstantiate(&execs[i], g, 0);
      if (g) cudaGraphDestroy(g);
      if (e != cudaSuccess && st.ok())
        st = Error{"CUDA graph capture of " + std::string(coll_info(req.coll).name) + ": " + cuda_msg(e)};
    }
    if (!st) return st;
    for (int pass = 0; pass < 2 && st.ok(); ++pass) {  // pass 0 warms the graph up, pass 1 is timed
      for (size_t i = 0; i < active.size(); ++i) {
        cudaSetDevice(active[i]->dev);
        if (pass == 1) cudaEventRecord(active[i]->start, active[i]->stream);
        cudaGraphLaunch(execs[i], active[i]->stream);
        if (pass == 1) cudaEventRecord(active[i]->stop, active[i]->stream);
      }
      st = wait(active, deadline, coll_info(req.coll).name);
    }
    for (size_t i = 0; i < execs.size(); ++i)
      if (execs[i]) cudaGraphExecDestroy(execs[i]);
    return st;
  }

  // Issues `n` back-to-back runs of the collective on every active rank (no waiting for the GPU).
  Status enqueue(const OpRequest& req, const std::vector<Local*>& active, int n, Deadline deadline) {
    bool group = active.size() > 1;
    for (int it = 0; it < n; ++it) {
      if (group) api_->ncclGroupStart();
      ncclResult_t first = ncclSuccess;
      bool pending = false;  // non-blocking communicators: a call may return ncclInProgress
      for (Local* l : active) {
        cudaSetDevice(l->dev);
        ncclResult_t rc = issue(req, *l);
        if (rc == ncclInProgress)
          pending = true;
        else if (rc != ncclSuccess && first == ncclSuccess)
          first = rc;
      }
      ncclResult_t rc = group ? api_->ncclGroupEnd() : ncclSuccess;
      if (rc == ncclInProgress) {
        pending = true;
        rc = ncclSuccess;
      }
      if (first != ncclSuccess) rc = first;
      if (rc != ncclSuccess) {
        Error e = nccl_error(std::string(coll_info(req.coll).name), rc, active[0]);
        abort_all();
        return e;
      }
      // Every later call needs the communicator ready again (ncclCommGetAsyncError == ncclSuccess).
      if (pending)
        if (auto st = settle(deadline, coll_info(req.coll).name); !st) return st;
    }
    return ok_status();
  }

  // Waits for the streams of the active ranks; polls NCCL for async errors; aborts at the deadline.
  Status wait(const std::vector<Local*>& active, Deadline deadline, const char* what) {
    std::vector<cudaEvent_t> marks(active.size());
    for (size_t i = 0; i < active.size(); ++i) {
      cudaSetDevice(active[i]->dev);
      cudaEventCreateWithFlags(&marks[i], cudaEventDisableTiming);
      cudaEventRecord(marks[i], active[i]->stream);
    }
    Status result = ok_status();
    size_t done = 0;
    std::vector<bool> finished(active.size(), false);
    int spins = 0;
    while (done < active.size()) {
      for (size_t i = 0; i < active.size(); ++i) {
        if (finished[i]) continue;
        cudaError_t e = cudaEventQuery(marks[i]);
        if (e == cudaSuccess) {
          finished[i] = true;
          ++done;
        } else if (e != cudaErrorNotReady) {
          result =
              Error{std::string(what) + " on GPU " + std::to_string(active[i]->dev) + ": " + cuda_msg(e)};
          done = active.size();
          break;
        }
      }
      if (done >= active.size()) break;
      for (Local* l : active) {
        ncclResult_t st = ncclSuccess;
        api_->ncclCommGetAsyncError(l->comm, &st);
        if (st != ncclSuccess && st != ncclInProgress) {
          result = nccl_error(std::string(what) + " failed on rank " + std::to_string(l->rank), st, l);
          done = active.size();
          break;
        }
      }
      if (!result.ok()) break;
      if (Clock::now() > deadline) {
        result = Error{std::string(what) + " did not complete before the deadline (a peer stalled or died?)"};
        break;
      }
      if (++spins > 100) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (!result.ok()) abort_all();
    for (size_t i = 0; i < marks.size(); ++i) cudaEventDestroy(marks[i]);
    return result;
  }

  const NcclApi* api_ = nullptr;
  int world_ = 1;
  bool register_ = false, graph_ = false;
  bool aborted_ = false;
  std::vector<Local> locals_;
};

}  // namespace

std::unique_ptr<Engine> make_nccl_engine() { return std::make_unique<NcclEngine>(); }

}  // namespace dd::comm
