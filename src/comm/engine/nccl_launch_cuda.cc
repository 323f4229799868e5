// NcclGroup's issuing side: buffers, one collective per rank mapped to its NCCL call, back-to-back runs
// (grouped when this process drives several ranks), and CUDA-graph capture of the timed runs.
#include "comm/engine/nccl_group_cuda.h"

namespace dd::comm {

using rendezvous::Deadline;

namespace {

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

// Point-to-point in one NCCL group: send to `to`, receive from `from` (alltoall: with every peer).
ncclResult_t send_recv_group(const NcclApi& api, const OpRequest& req, const Sizing& s, const char* sendp,
                             char* recvp, NcclRank& r, int world) {
  const size_t es = dtype_size(req.dtype);
  ncclDataType_t dt = nccl_type(req.dtype);
  ncclResult_t rc = api.ncclGroupStart();
  if (req.coll == Coll::alltoall) {
    for (int p = 0; p < world && rc == ncclSuccess; ++p) {
      rc = api.ncclSend(sendp + p * s.chunk * es, s.chunk, dt, p, r.comm, r.stream);
      if (rc == ncclSuccess || rc == ncclInProgress)
        rc = api.ncclRecv(recvp + p * s.chunk * es, s.chunk, dt, p, r.comm, r.stream);
      if (rc == ncclInProgress) rc = ncclSuccess;
    }
  } else {
    int to = (r.rank + 1) % world, from = (r.rank - 1 + world) % world;
    if (req.pair_a >= 0) to = from = r.rank == req.pair_a ? req.pair_b : req.pair_a;
    if (rc == ncclSuccess) rc = api.ncclSend(sendp, s.send_count, dt, to, r.comm, r.stream);
    if (rc == ncclSuccess || rc == ncclInProgress)
      rc = api.ncclRecv(recvp, s.send_count, dt, from, r.comm, r.stream);
    if (rc == ncclInProgress) rc = ncclSuccess;
  }
  ncclResult_t rc2 = api.ncclGroupEnd();
  return rc != ncclSuccess ? rc : rc2;
}

}  // namespace

void NcclGroup::free_buffer(NcclRank& r, char*& p, size_t& cap, void*& reg) {
  if (reg)
    symmetric_windows ? api->ncclCommWindowDeregister(r.comm, reg) : api->ncclCommDeregister(r.comm, reg);
  if (p && symmetric_windows)
    api->ncclMemFree(p);
  else if (p)
    cudaFree(p);
  p = nullptr;
  reg = nullptr;
  cap = 0;
}

Status NcclGroup::grow_window(NcclRank& r, char*& p, size_t& cap, void*& reg, size_t need) {
  void* mem = nullptr;
  ncclResult_t rc = api->ncclMemAlloc(&mem, need);
  if (rc != ncclSuccess) return nccl_error("ncclMemAlloc(" + std::to_string(need) + ")", rc, &r);
  p = static_cast<char*>(mem);
  cap = need;
  rc = api->ncclCommWindowRegister(r.comm, p, need, &reg, NCCL_WIN_COLL_SYMMETRIC);
  if (rc != ncclSuccess && rc != ncclInProgress) return nccl_error("ncclCommWindowRegister", rc, &r);
  // A non-blocking communicator may still be registering even when the call said ncclSuccess: the next
  // call on it would be refused, so wait until it is ready in either case.
  if (auto st = settle(rendezvous::deadline_in(std::chrono::seconds(60)), "ncclCommWindowRegister"); !st)
    return st;
  if (!reg)  // NCCL answers ncclSuccess without a window where the communicator has no symmetric support
    return Error{"no symmetric window on GPU " + std::to_string(r.node_dev) +
                     ": this NCCL or topology has no symmetric memory support",
                 0, ErrorKind::unavailable};
  return ok_status();
}

Status NcclGroup::grow(NcclRank& r, char*& p, size_t& cap, void*& reg, size_t need) {
  if (need <= cap) return ok_status();
  free_buffer(r, p, cap, reg);
  if (symmetric_windows) return grow_window(r, p, cap, reg, need);
  cudaError_t e = cudaMalloc(&p, need);
  if (e != cudaSuccess)
    return Error{"cudaMalloc(" + std::to_string(need) + ") on GPU " + std::to_string(r.node_dev) + ": " +
                 cuda_msg(e)};
  cap = need;
  if (register_buffers) {
    ncclResult_t rc = api->ncclCommRegister(r.comm, p, need, &reg);
    if (rc == ncclInProgress) rc = ncclSuccess;
    if (rc != ncclSuccess) return nccl_error("ncclCommRegister", rc, &r);
  }
  return ok_status();
}

Status NcclGroup::ensure(NcclRank& r, size_t send_bytes, size_t recv_bytes) {
  cudaSetDevice(r.dev);
  if (auto st = grow(r, r.send, r.send_cap, r.send_reg, std::max<size_t>(send_bytes, 256)); !st) return st;
  return grow(r, r.recv, r.recv_cap, r.recv_reg, std::max<size_t>(recv_bytes, 256));
}

ncclResult_t NcclGroup::issue(const OpRequest& req, NcclRank& r) {
  const size_t es = dtype_size(req.dtype);
  Sizing s = coll_info(req.coll).size(req.bytes, es, world, r.rank);
  ncclDataType_t dt = nccl_type(req.dtype);
  const char* sendp = req.in_place ? r.recv + s.inplace_send_offset * es : r.send;
  char* recvp = r.recv;
  switch (req.coll) {
    case Coll::all_reduce:
      return api->ncclAllReduce(sendp, recvp, s.send_count, dt, ncclSum, r.comm, r.stream);
    case Coll::all_gather:
      return api->ncclAllGather(sendp, recvp, s.chunk, dt, r.comm, r.stream);
    case Coll::reduce_scatter:
      recvp = r.recv + (req.in_place ? s.inplace_check_offset * es : 0);
      return api->ncclReduceScatter(sendp, recvp, s.chunk, dt, ncclSum, r.comm, r.stream);
    case Coll::broadcast:
      return api->ncclBroadcast(sendp, recvp, s.send_count, dt, req.root, r.comm, r.stream);
    case Coll::reduce:
      return api->ncclReduce(sendp, recvp, s.send_count, dt, ncclSum, req.root, r.comm, r.stream);
    case Coll::alltoall:
    case Coll::sendrecv:
      return send_recv_group(*api, req, s, sendp, recvp, r, world);
  }
  return ncclInvalidArgument;
}

Status NcclGroup::enqueue(const OpRequest& req, const std::vector<NcclRank*>& active, int n,
                          Deadline deadline, bool marks) {
  const char* what = coll_info(req.coll).name;
  bool group = active.size() > 1;
  if (marks) mark_stride_ = std::max(1, (n + kMaxMarks - 1) / kMaxMarks);
  for (int it = 0; it < n; ++it) {
    if (group) api->ncclGroupStart();
    ncclResult_t first = ncclSuccess;
    bool pending = false;  // non-blocking communicators: a call may return ncclInProgress
    for (NcclRank* r : active) {
      cudaSetDevice(r->dev);
      ncclResult_t rc = issue(req, *r);
      if (rc == ncclInProgress)
        pending = true;
      else if (rc != ncclSuccess && first == ncclSuccess)
        first = rc;
    }
    ncclResult_t rc = group ? api->ncclGroupEnd() : ncclSuccess;
    if (rc == ncclInProgress) {
      pending = true;
      rc = ncclSuccess;
    }
    if (first != ncclSuccess) rc = first;
    if (rc != ncclSuccess) {
      Error e = nccl_error(what, rc, active[0]);
      abort_all();
      return e;
    }
    // Every later call needs the communicator ready again (ncclCommGetAsyncError == ncclSuccess).
    if (pending)
      if (auto st = settle(deadline, what); !st) return st;
    if (marks) {
      record_mark(active, it);
      poll_marks(active);  // a full launch queue blocks the loop above while earlier runs complete
    }
  }
  return ok_status();
}

Status NcclGroup::launch(const OpRequest& req, const std::vector<NcclRank*>& active, int n, Deadline deadline,
                         bool record_stop) {
  if (auto st = enqueue(req, active, n, deadline, /*marks=*/true); !st) return st;
  if (record_stop)
    for (NcclRank* r : active) {
      cudaSetDevice(r->dev);
      cudaEventRecord(r->stop, r->stream);
    }
  Status st = wait(active, deadline, coll_info(req.coll).name);
  if (st) note_runs(n);
  return st;
}

Status NcclGroup::launch_graph(const OpRequest& req, const std::vector<NcclRank*>& active,
                               Deadline deadline) {
  std::vector<cudaGraphExec_t> execs(active.size(), nullptr);
  no_stall_ = true;  // the graph's runs carry no marks: only the op's deadline bounds them
  struct Restore {
    bool& flag;
    ~Restore() { flag = false; }
  } restore{no_stall_};
  for (NcclRank* r : active) {
    cudaSetDevice(r->dev);
    cudaError_t e = cudaStreamBeginCapture(r->stream, cudaStreamCaptureModeThreadLocal);
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

}  // namespace dd::comm
