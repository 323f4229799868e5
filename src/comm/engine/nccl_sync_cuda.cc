// NcclGroup's waiting side: NCCL error text, abort, settling non-blocking communicators, and waiting for
// the streams with a deadline.
#include <thread>

#include "comm/engine/nccl_group_cuda.h"

namespace dd::comm {

using rendezvous::Clock;
using rendezvous::Deadline;

std::string cuda_msg(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

NcclGroup::~NcclGroup() {
  for (auto& r : ranks) {
    if (r.comm) {
      if (aborted_)
        api->ncclCommAbort(r.comm);
      else
        api->ncclCommDestroy(r.comm);
    }
    cudaSetDevice(r.dev);
    if (r.send) cudaFree(r.send);
    if (r.recv) cudaFree(r.recv);
    if (r.d_wrong) cudaFree(r.d_wrong);
    for (cudaEvent_t e : r.marks) cudaEventDestroy(e);
  }
}

Error NcclGroup::nccl_error(const std::string& what, ncclResult_t rc, NcclRank* r) {
  std::string msg = what + ": " + api->ncclGetErrorString(rc);
  if (api->ncclGetLastError) {
    const char* last = api->ncclGetLastError(r ? r->comm : nullptr);
    if (last && *last) msg += " — " + std::string(last);
  }
  return Error{msg};
}

void NcclGroup::abort_all() {
  aborted_ = true;
  for (auto& r : ranks)
    if (r.comm) api->ncclCommAbort(r.comm);
  for (auto& r : ranks) r.comm = nullptr;
}

Status NcclGroup::settle(Deadline deadline, const char* what) {
  for (int spins = 0;;) {
    bool busy = false;
    for (auto& r : ranks) {
      ncclResult_t st = ncclSuccess;
      ncclResult_t rc = api->ncclCommGetAsyncError(r.comm, &st);
      if (rc != ncclSuccess) st = rc;
      if (st == ncclInProgress) {
        busy = true;
      } else if (st != ncclSuccess) {
        Error e = nccl_error(std::string(what) + " failed on rank " + std::to_string(r.rank), st, &r);
        abort_all();
        return e;
      }
    }
    if (!busy) return ok_status();
    if (Clock::now() > deadline) {
      abort_all();
      return Error{
          std::string(what) + " did not finish before the deadline (ncclInProgress); communicator aborted", 0,
          ErrorKind::timeout};
    }
    if (++spins < 2000)
      std::this_thread::yield();  // enqueue usually settles within microseconds
    else
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

namespace {

// First NCCL async error among the active ranks, or ncclSuccess.
ncclResult_t async_error(const NcclApi& api, const std::vector<NcclRank*>& active, NcclRank** who) {
  for (NcclRank* r : active) {
    ncclResult_t st = ncclSuccess;
    api.ncclCommGetAsyncError(r->comm, &st);
    if (st != ncclSuccess && st != ncclInProgress) {
      *who = r;
      return st;
    }
  }
  return ncclSuccess;
}

}  // namespace

Status NcclGroup::wait(const std::vector<NcclRank*>& active, Deadline deadline, const char* what) {
  std::vector<cudaEvent_t> marks(active.size());
  for (size_t i = 0; i < active.size(); ++i) {
    cudaSetDevice(active[i]->dev);
    cudaEventCreateWithFlags(&marks[i], cudaEventDisableTiming);
    cudaEventRecord(marks[i], active[i]->stream);
  }
  Status result = ok_status();
  std::vector<bool> finished(active.size(), false);
  for (size_t done = 0, spins = 0; done < active.size() && result.ok();) {
    for (size_t i = 0; i < active.size() && result.ok(); ++i) {
      if (finished[i]) continue;
      cudaError_t e = cudaEventQuery(marks[i]);
      if (e == cudaSuccess) {
        finished[i] = true;
        ++done;
      } else if (e != cudaErrorNotReady) {
        result = Error{std::string(what) + " on GPU " + std::to_string(active[i]->dev) + ": " + cuda_msg(e)};
      }
    }
    if (done >= active.size() || !result.ok()) break;
    NcclRank* who = nullptr;
    poll_marks(active);
    if (ncclResult_t st = async_error(*api, active, &who); st != ncclSuccess) {
      result = nccl_error(std::string(what) + " failed on rank " + std::to_string(who->rank), st, who);
    } else if (auto stall = stalled(what)) {
      result = *stall;
    } else if (Clock::now() > deadline) {
      result = Error{std::string(what) + " did not complete before the deadline (a peer stalled or died?)", 0,
                     ErrorKind::timeout};
    } else if (++spins > 100) {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  if (!result.ok()) abort_all();
  for (size_t i = 0; i < marks.size(); ++i) cudaEventDestroy(marks[i]);
  return result;
}

}  // namespace dd::comm
