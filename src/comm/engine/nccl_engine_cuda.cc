// The NCCL engine: non-blocking communicators with a deadline, collectives on CUDA streams timed with
// CUDA events, and on-device data checks. Serves one rank (process mode) or all local GPUs (--threads).
#include <cstring>
#include <future>
#include <tuple>

#include "comm/engine/engine.h"
#include "comm/engine/nccl_group_cuda.h"

namespace dd::comm {

namespace {

using rendezvous::Clock;
using rendezvous::Deadline;

class NcclEngine : public Engine {
 public:
  const char* name() const override { return "nccl"; }
  std::string describe() const override {
    return g_.api ? "NCCL " + g_.api->version_string() + " (" + g_.api->path + ")" : "NCCL (not loaded)";
  }

  // CUDA init and the loading of NCCL are independent: NCCL loads on a thread beside CUDA's init. Each rank
  // initialises CUDA before it waits for rank 0's unique id, so that wait overlaps the other ranks' init.
  Status init(const EngineConfig& cfg) override {
    auto t = Clock::now();
    double load_s = 0;
    auto loading = std::async(std::launch::async, [&cfg, &load_s] {
      auto t0 = Clock::now();
      auto api = load_nccl(cfg.run->nccl_lib);
      load_s = seconds_since(t0);
      return api;
    });
    Status devices = set_up_devices(cfg);
    auto api = loading.get();
    init_phases.emplace_back("load NCCL (beside CUDA init)", load_s);
    phase("CUDA init (device, stream, events)", t);
    if (!api) return api.error();
    if (!devices) return devices;
    g_.api = *api;
    g_.world = cfg.world;
    g_.register_buffers = cfg.run->register_buffers && g_.api->ncclCommRegister && g_.api->ncclCommDeregister;
    g_.symmetric_windows = cfg.run->symmetric_windows && g_.api->has_windows() && cfg.ranks.size() == 1;
    graph_ = cfg.run->cuda_graph;
    ncclUniqueId id{};
    if (auto st = share_unique_id(cfg, id); !st) return st;
    phase("NCCL unique id (create, or wait for rank 0)", t);
    if (auto st = create_comms(cfg, id); !st) return st;
    phase("NCCL communicator init", t);
    reserve_buffers(cfg);
    phase("allocation (largest size, once)", t);
    return ok_status();
  }

  // Progress marks cost a stream event per run: only ops large enough that it cannot show in their time
  // (smaller ones have a short whole-op deadline anyway), and never inside a CUDA graph.
  static constexpr uint64_t kMarkMinBytes = 16ull << 20;
  bool reports_progress(const OpRequest& req) const override { return !graph_ && req.bytes >= kMarkMinBytes; }

  Result<std::vector<RankResult>> run(const OpRequest& req) override {
    Deadline deadline = Clock::now() + req.timeout;
    g_.begin_op(reports_progress(req) ? req.run_timeout : std::chrono::milliseconds(0),
                [this](int runs) { progress(runs); });
    std::vector<RankResult> out;
    std::vector<NcclRank*> active;
    if (auto st = select_ranks(req, out, active); !st) return st.error();
    if (active.empty()) return out;
    const bool check = data_checked(req);
    if (check && req.check_every) {  // --check all: every timed run checked, each timed on its own
      if (auto st = run_checked_each(req, active, deadline, out); !st) return st.error();
      return out;
    }
    if (check)
      if (auto st = run_checked(req, active, deadline, out); !st) return st.error();
    if (req.warmup > 0)
      if (auto st = g_.launch(req, active, req.warmup, deadline); !st) return st.error();
    if (auto st = run_timed(req, active, deadline); !st) return st.error();
    for (NcclRank* r : active) {
      float ms = 0;
      cudaEventElapsedTime(&ms, r->start, r->stop);
      for (auto& rr : out)
        if (rr.rank == r->rank) rr.time_us = req.iters > 0 ? ms * 1000.0 / req.iters : 0;
    }
    return out;
  }

 private:
  void phase(const char* name, Clock::time_point& t) {
    init_phases.emplace_back(name, seconds_since(t));
    t = Clock::now();
  }

  // Buffers for the largest run of the plan, allocated (and registered) once instead of growing size by
  // size. Best effort: when that much memory is not there, buffers grow run by run as before, so a sweep
  // still runs its smaller sizes.
  void reserve_buffers(const EngineConfig& cfg) {
    for (auto& r : g_.ranks) {
      BufferNeed most;
      for (const auto& op : cfg.run->ops) {
        const size_t es = dtype_size(op.dtype);
        BufferNeed n = buffer_need(coll_info(op.coll).size(op.bytes, es, g_.world, r.rank), op.in_place);
        most.send = std::max<uint64_t>(most.send, n.send * es);
        most.recv = std::max<uint64_t>(most.recv, n.recv * es);
      }
      if (!g_.ensure(r, most.send, most.recv)) {
        cudaGetLastError();  // a failed cudaMalloc is not sticky; clear it
        release(r);          // nothing half-made (allocated but unregistered) is kept
        return;
      }
    }
  }

  void release(NcclRank& r) {
    cudaSetDevice(r.dev);
    g_.free_buffer(r, r.send, r.send_cap, r.send_reg);
    g_.free_buffer(r, r.recv, r.recv_cap, r.recv_reg);
  }

  // Rank 0's process creates the NCCL unique id and publishes it in the store; the others wait for it.
  Status share_unique_id(const EngineConfig& cfg, ncclUniqueId& id) {
    const std::string key = cfg.run->store_prefix + "nccl_unique_id";
    bool root_here = false;
    for (int r : cfg.ranks) root_here |= r == 0;
    if (root_here) {
      ncclResult_t rc = g_.api->ncclGetUniqueId(&id);
      if (rc != ncclSuccess)
        return Error{std::string("ncclGetUniqueId failed: ") + g_.api->ncclGetErrorString(rc) +
                     " (NCCL found no usable bootstrap interface? see NCCL_SOCKET_IFNAME)"};
      if (!cfg.store) return ok_status();
      auto st = cfg.store->set(key, std::string(id.internal, sizeof(id.internal)), cfg.init_deadline);
      if (!st) return Error{"publish NCCL unique id: " + st.error().message()};
      return ok_status();
    }
    if (!cfg.store) return Error{"no store to fetch the NCCL unique id from"};
    auto v = cfg.store->get(key, cfg.init_deadline);
    if (!v)
      return timeout_if_past(Error{"waiting for rank 0's NCCL unique id: " + v.error().message()},
                             cfg.init_deadline);
    if (v->size() != sizeof(id.internal)) return Error{"NCCL unique id in the store has the wrong size"};
    std::memcpy(id.internal, v->data(), sizeof(id.internal));
    return ok_status();
  }

  // One stream, two timing events and a wrong-element counter on each served rank's GPU.
  Status set_up_devices(const EngineConfig& cfg) {
    int ndev = 0;
    cudaError_t ce = cudaGetDeviceCount(&ndev);
    if (ce != cudaSuccess) return Error{"cudaGetDeviceCount: " + cuda_msg(ce)};
    g_.ranks.resize(cfg.ranks.size());
    for (size_t i = 0; i < cfg.ranks.size(); ++i) {
      NcclRank& r = g_.ranks[i];
      r.rank = cfg.ranks[i];
      const int node_dev = i < cfg.devices.size() ? cfg.devices[i] : int(i);
      r.dev = cfg.own_gpu ? 0 : node_dev;  // own_gpu: the one device this process sees
      r.node_dev = node_dev;
      if (r.dev >= ndev)
        return Error{"rank " + std::to_string(r.rank) + " needs CUDA device " + std::to_string(node_dev) +
                     " but only " + std::to_string(ndev) + " GPU(s) are visible" +
                     (cfg.cuda_visible_devices ? " (CUDA_VISIBLE_DEVICES=" + *cfg.cuda_visible_devices + ")"
                                               : std::string())};
      if ((ce = cudaSetDevice(r.dev)) != cudaSuccess) return Error{"cudaSetDevice: " + cuda_msg(ce)};
      if ((ce = cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking)) != cudaSuccess)
        return Error{"cudaStreamCreate on GPU " + std::to_string(r.node_dev) + ": " + cuda_msg(ce)};
      cudaEventCreate(&r.start);
      cudaEventCreate(&r.stop);
      if ((ce = cudaMalloc(&r.d_wrong, 2 * sizeof(unsigned long long))) != cudaSuccess)
        return Error{"cudaMalloc on GPU " + std::to_string(r.node_dev) + ": " + cuda_msg(ce)};
    }
    return ok_status();
  }

  Status create_comms(const EngineConfig& cfg, const ncclUniqueId& id) {
    bool group = g_.ranks.size() > 1;
    if (group) g_.api->ncclGroupStart();
    for (auto& r : g_.ranks) {
      cudaSetDevice(r.dev);
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      config.blocking = 0;
      ncclResult_t rc = g_.api->ncclCommInitRankConfig(&r.comm, g_.world, id, r.rank, &config);
      if (rc != ncclSuccess && rc != ncclInProgress) {
        if (group) g_.api->ncclGroupEnd();
        return g_.nccl_error("ncclCommInitRank (rank " + std::to_string(r.rank) + ")", rc, &r);
      }
    }
    if (group) {
      ncclResult_t rc = g_.api->ncclGroupEnd();
      if (rc != ncclSuccess && rc != ncclInProgress) return g_.nccl_error("ncclGroupEnd (init)", rc, nullptr);
    }
    return g_.settle(cfg.init_deadline, "communicator init");
  }

  // One result per served rank; the ranks taking part (a pair run leaves the others out) get buffers.
  Status select_ranks(const OpRequest& req, std::vector<RankResult>& out, std::vector<NcclRank*>& active) {
    const CollInfo& info = coll_info(req.coll);
    const size_t es = dtype_size(req.dtype);
    for (auto& r : g_.ranks) {
      auto t = Clock::now();
      RankResult rr;
      rr.rank = r.rank;
      if (req.pair_a >= 0 && r.rank != req.pair_a && r.rank != req.pair_b) {
        rr.participated = false;
      } else {
        active.push_back(&r);
        // In-place, the input lies inside the receive buffer: it must hold both (buffer_need).
        BufferNeed need = buffer_need(info.size(req.bytes, es, g_.world, r.rank), req.in_place);
        if (auto st = g_.ensure(r, need.send * es, need.recv * es); !st) return st;
        rr.alloc_us = seconds_since(t) * 1e6;
      }
      out.push_back(rr);
    }
    return ok_status();
  }

  // Poisoned output, known input, one run, then every output element compared on the GPU.
  Status run_checked(const OpRequest& req, const std::vector<NcclRank*>& active, Deadline deadline,
                     std::vector<RankResult>& out) {
    if (auto st = g_.prepare_data(req, active); !st) return st;
    if (auto st = g_.launch(req, active, 1, deadline); !st) return st;
    if (auto st = g_.launch_checks(req, active); !st) return st;
    if (auto st = g_.wait(active, deadline, "data check"); !st) return st;
    g_.collect_wrong(req, active, out);
    return ok_status();
  }

  // --check all: the warm-up runs, then each timed run between fresh data and its own check; the time of
  // a run is the mean of these runs, each measured alone.
  Status run_checked_each(const OpRequest& req, const std::vector<NcclRank*>& active, Deadline deadline,
                          std::vector<RankResult>& out) {
    if (req.warmup > 0)
      if (auto st = g_.launch(req, active, req.warmup, deadline); !st) return st;
    std::vector<double> total_ms(active.size(), 0);
    for (int it = 0; it < req.iters; ++it) {
      if (auto st = g_.prepare_data(req, active); !st) return st;
      for (NcclRank* r : active) {
        cudaSetDevice(r->dev);
        cudaEventRecord(r->start, r->stream);
      }
      if (auto st = g_.enqueue(req, active, 1, deadline); !st) return st;
      for (NcclRank* r : active) {
        cudaSetDevice(r->dev);
        cudaEventRecord(r->stop, r->stream);
      }
      if (auto st = g_.launch_checks(req, active); !st) return st;
      if (auto st = g_.wait(active, deadline, "data check"); !st) return st;
      g_.note_runs(1);
      g_.collect_wrong(req, active, out);
      for (size_t i = 0; i < active.size(); ++i) {
        float ms = 0;
        cudaEventElapsedTime(&ms, active[i]->start, active[i]->stop);
        total_ms[i] += ms;
      }
    }
    for (size_t i = 0; i < active.size(); ++i)
      for (auto& rr : out)
        if (rr.rank == active[i]->rank) rr.time_us = req.iters > 0 ? total_ms[i] * 1000.0 / req.iters : 0;
    return ok_status();
  }

  // The timed runs: as one captured CUDA graph (--cuda-graph), or back to back between two events.
  Status run_timed(const OpRequest& req, const std::vector<NcclRank*>& active, Deadline deadline) {
    if (graph_) return g_.launch_graph(req, active, deadline);
    for (NcclRank* r : active) {
      cudaSetDevice(r->dev);
      cudaEventRecord(r->start, r->stream);
    }
    return g_.launch(req, active, req.iters, deadline, /*record_stop=*/true);
  }

  NcclGroup g_;
  bool graph_ = false;
};

}  // namespace

std::unique_ptr<Engine> make_nccl_engine() { return std::make_unique<NcclEngine>(); }

}  // namespace dd::comm
