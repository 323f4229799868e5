// NcclGroup's progress marks (nccl_group_cuda.h): one event after each run of a long launch, so that a stall
// is noticed one run's deadline after the last run that completed, not at the end of a long timed loop
// (-n 200 at 8 GiB), and the supervisor hears that the runs still complete.
#include <fmt/format.h>

#include "comm/engine/nccl_group_cuda.h"

namespace dd::comm {

using rendezvous::Clock;

void NcclGroup::begin_op(std::chrono::milliseconds stall, std::function<void(int)> on_runs) {
  stall_ = stall;
  on_runs_ = std::move(on_runs);
  runs_done_ = 0;
  marks_set_ = marks_seen_ = 0;
  mark_stride_ = 1;
  last_move_ = Clock::now();
}

void NcclGroup::record_mark(const std::vector<NcclRank*>& active, int run) {
  if (stall_.count() <= 0 || no_stall_ || (run + 1) % mark_stride_ != 0) return;
  for (NcclRank* r : active) {
    cudaSetDevice(r->dev);
    if (r->marks.size() <= marks_set_) {
      cudaEvent_t e = nullptr;
      if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) return;
      r->marks.push_back(e);
    }
    cudaEventRecord(r->marks[marks_set_], r->stream);
  }
  ++marks_set_;
}

void NcclGroup::poll_marks(const std::vector<NcclRank*>& active) {
  const size_t before = marks_seen_;
  while (marks_seen_ < marks_set_) {
    bool all = true;
    for (NcclRank* r : active) all = all && cudaEventQuery(r->marks[marks_seen_]) == cudaSuccess;
    if (!all) break;
    ++marks_seen_;
  }
  if (marks_seen_ == before) return;
  last_move_ = Clock::now();
  if (on_runs_) on_runs_(runs_done_ + int(marks_seen_) * mark_stride_);
}

void NcclGroup::note_runs(int n) {
  runs_done_ += n;
  marks_set_ = marks_seen_ = 0;
  last_move_ = Clock::now();
  if (on_runs_) on_runs_(runs_done_);
}

std::optional<Error> NcclGroup::stalled(const char* what) const {
  if (stall_.count() <= 0 || no_stall_) return std::nullopt;
  const int done = runs_done_ + int(marks_seen_) * mark_stride_;
  const auto bound = stall_ + (done == 0 ? kFirstRunAllowance : std::chrono::milliseconds(0));
  if (Clock::now() <= last_move_ + bound) return std::nullopt;
  return Error{fmt::format("{}: no run completed for {:.1f} s ({} run(s) of this op done; a peer stalled or "
                           "died?)",
                           what, std::chrono::duration<double>(bound).count(), done),
               0, ErrorKind::timeout};
}

}  // namespace dd::comm
