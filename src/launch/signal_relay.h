// The launcher's signals during one attempt (launch/stop_signals.h): what a scheduler sends the job (Slurm's
// --signal=USR1@T, a checkpoint request) is passed on to every worker's process group (and the companion's),
// as srun and torchrun users expect, and never ends the launcher: the job's outcome is what the workers then
// do. Each is noted for the report either way. And at the end, what the workers left behind outside their
// groups (stop_strays: the job's last processes, stopped here with the same grace).
#pragma once
#include <string>
#include <vector>

#include "launch/attempt_stop.h"
#include "launch/companion_runner.h"
#include "launch/worker_set.h"

namespace dd::launch {

class SignalRelay {
 public:
  // The signals that came since the last call, passed on to the workers and the companion; why_not (not
  // null) keeps them from the workers and says why.
  void forward(WorkerSet& workers, CompanionRunner& companion, const char* why_not = nullptr);
  std::vector<std::string> notes() const;  // what came and where it went ("and N more" past kKept)

 private:
  static constexpr size_t kKept = 16;  // notes kept per attempt; the rest are counted
  std::vector<std::string> notes_;
  size_t more_ = 0;
};

// Launch is a child subreaper: what the workers (process groups `groups`) started and left outside their
// groups came back to it, and what descends from those; stopped, and named in n.strays (launch.job.strays).
void stop_strays(const AttemptSetup& s, const std::vector<pid_t>& groups, const AttemptStop& stop,
                 NodeRecord& n);

}  // namespace dd::launch
