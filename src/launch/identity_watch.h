// The identity watch of one attempt: each local worker's environment and loaded NCCL library, read from
// /proc while it starts (until it has loaded NCCL, or kPatience has passed), kept in its record for the
// node's records, and compared across the node's ranks once all are read: a rank with another NCCL or an
// NCCL variable of its own is named at once (a warning through the progress sink), before any hang. The
// job-wide comparison, across nodes, is in the report (report_parts).
#pragma once
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "launch/attempt.h"
#include "launch/local_worker.h"
#include "probe/process_identity.h"

namespace dd::launch {

// A process's identity as a rank's record holds it: its NCCL_*, CUDA_*, TORCH_*... variables as
// env_for_compare leaves them, and "NCCL library" -> its path when it has loaded one.
std::map<std::string, std::string> identity_items(const probe::ProcessIdentity& id);

class IdentityWatch {
 public:
  using Clock = std::chrono::steady_clock;
  explicit IdentityWatch(const AttemptSetup& s) : s_(s) {}
  // One turn of the node agent's loop (at most every kReadEvery); last: the watch ends, what was read
  // stands. t0: when the workers started.
  void tick(std::vector<LocalWorker>& workers, Clock::time_point t0, bool last = false);

 private:
  void warn_odd(std::vector<LocalWorker>& workers);

  const AttemptSetup& s_;
  bool settled_ = false;
  Clock::time_point next_read_{};
};

}  // namespace dd::launch
