// NcclGroup: the NCCL communicators this process drives (one per served rank), their CUDA streams, events
// and buffers, and the calls on all of them together: issue a collective, wait for the streams with a
// deadline while polling NCCL for async errors, abort everything on failure.
#pragma once
#include <cuda_runtime_api.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "comm/engine/op_request.h"
#include "dynlib/nccl_api_cuda.h"
#include "rendezvous/store.h"

namespace dd::comm {

using dynlib::load_nccl;
using dynlib::NcclApi;

std::string cuda_msg(cudaError_t e);

struct NcclRank {
  int rank = 0, dev = 0;     // dev: the CUDA device in this process
  int node_dev = 0;          // the GPU as the node numbers it (differs from dev when the worker sees one GPU)
  void* send_reg = nullptr;  // ncclCommRegister handles (--register), or window handles (symmetric_windows)
  void* recv_reg = nullptr;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  char* send = nullptr;
  char* recv = nullptr;
  size_t send_cap = 0, recv_cap = 0;
  unsigned long long* d_wrong = nullptr;
  std::vector<cudaEvent_t> marks;  // progress marks, created once and reused launch after launch
};

class NcclGroup {
 public:
  ~NcclGroup();

  const NcclApi* api = nullptr;
  int world = 1;
  bool register_buffers = false;
  // Buffers from ncclMemAlloc in symmetric windows (ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC): a
  // collective call, so only where each process drives one rank.
  bool symmetric_windows = false;
  std::vector<NcclRank> ranks;

  // Progress of one op (nccl_progress_cuda.cc): with `stall` > 0, launch() records a mark after each run (at
  // most kMaxMarks per launch), waits report completed runs to `on_runs` and fail when nothing completed for
  // `stall` (plus kFirstRunAllowance before the op's first run). stall 0: only the op's deadline bounds it.
  static constexpr int kMaxMarks = 1024;
  void begin_op(std::chrono::milliseconds stall, std::function<void(int)> on_runs);
  // n more runs of the op completed (a launch's, or one checked run of --check all): reported, and the stall
  // bound starts again.
  void note_runs(int n);

  // "what: ncclGetErrorString — ncclGetLastError".
  Error nccl_error(const std::string& what, ncclResult_t rc, NcclRank* r);
  void abort_all();
  // Polls every communicator until none is in progress; aborts on error or deadline (a timeout Error).
  Status settle(rendezvous::Deadline deadline, const char* what);
  // Waits for the streams of the active ranks; polls NCCL for async errors; aborts at the deadline.
  Status wait(const std::vector<NcclRank*>& active, rendezvous::Deadline deadline, const char* what);
  // Send and receive buffers of at least these sizes (registered with NCCL when register_buffers).
  Status ensure(NcclRank& r, size_t send_bytes, size_t recv_bytes);
  // Deregisters and frees one buffer (either kind); leaves it empty.
  void free_buffer(NcclRank& r, char*& p, size_t& cap, void*& reg);
  // Issues `n` back-to-back runs of the collective on every active rank (no waiting for the GPU).
  // marks: record progress marks between the runs (launch() asks for them).
  Status enqueue(const OpRequest& req, const std::vector<NcclRank*>& active, int n, rendezvous::Deadline d,
                 bool marks = false);
  // enqueue, then (record_stop: the stop event on each stream) wait.
  Status launch(const OpRequest& req, const std::vector<NcclRank*>& active, int n, rendezvous::Deadline d,
                bool record_stop = false);
  // The data check (nccl_check_cuda.cc): the whole buffer a run uses poisoned and its input written; the
  // check kernels queued; each active rank's wrong and compared element counts added to `out`.
  Status prepare_data(const OpRequest& req, const std::vector<NcclRank*>& active);
  Status launch_checks(const OpRequest& req, const std::vector<NcclRank*>& active);
  void collect_wrong(const OpRequest& req, const std::vector<NcclRank*>& active,
                     std::vector<RankResult>& out);
  // Timed runs captured once into a CUDA graph per stream (--cuda-graph), then launched as one.
  Status launch_graph(const OpRequest& req, const std::vector<NcclRank*>& active, rendezvous::Deadline d);

 private:
  ncclResult_t issue(const OpRequest& req, NcclRank& r);
  Status grow(NcclRank& r, char*& p, size_t& cap, void*& reg, size_t need);
  Status grow_window(NcclRank& r, char*& p, size_t& cap, void*& reg, size_t need);
  // Progress state of the current op (nccl_progress_cuda.cc).
  void record_mark(const std::vector<NcclRank*>& active, int run);
  void poll_marks(const std::vector<NcclRank*>& active);  // counts completed marks; reports runs
  std::optional<Error> stalled(const char* what) const;   // nothing completed for too long
  std::chrono::milliseconds stall_{0};
  std::function<void(int)> on_runs_;
  int runs_done_ = 0;                      // runs of the op completed before the current launch
  int mark_stride_ = 1;                    // runs per mark in the current launch
  size_t marks_set_ = 0, marks_seen_ = 0;  // marks recorded / seen complete in the current launch
  bool no_stall_ = false;                  // a CUDA graph's runs: no marks, only the deadline
  rendezvous::Clock::time_point last_move_{};
  bool aborted_ = false;
};

}  // namespace dd::comm
