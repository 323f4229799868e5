// A launcher convention's companion process for one attempt (launcher_convention.h: MindSpore's scheduler
// with --mindspore): node rank 0 starts the job's command once more with the companion's env, before the
// workers, as msrun does. Not a rank: its own log (nodeN.ROLE.log), its own process group (watched by the
// orphan guard, like the workers'), stopped with the workers. MindSpore's ends by itself (exit 0) once every
// worker left its cluster; a non-zero exit or a signal before the workers finished stops the job
// (StopCause::scheduler_failed, raised by the node agent).
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "launch/attempt.h"
#include "launch/launcher_convention.h"
#include "process/output_tail.h"
#include "process/worker_supervisor.h"

namespace dd::launch {

class CompanionRunner {
 public:
  using Clock = std::chrono::steady_clock;
  CompanionRunner(const AttemptSetup& s, int attempt) : s_(s), attempt_(attempt) {}
  bool started() const { return !sup_.workers().empty(); }
  // Starts it (its log file was made with the workers'); an Error when it cannot be. before_echo runs before
  // each of its lines reaches the terminal.
  Status start(const CompanionProcess& c, const ConventionInput& in, std::function<void()> before_echo);
  const std::string& log_path() const { return log_; }
  // Its output, and whether it ended: true once, when it has just ended badly (a signal, a non-zero exit)
  // without launch having signalled it. Exit 0 is how MindSpore's scheduler ends after the workers left.
  bool ended_badly_now();
  int wait_status() const { return sup_.workers().front().wait_status; }
  void signal();  // SIGTERM now, while the workers are being stopped
  // SIGTERM, SIGKILL after grace (none once cut() says so); reaped.
  void stop(std::chrono::milliseconds grace, const std::function<bool()>& cut);
  // Every worker succeeded: a moment for it to exit by itself, then stopped.
  void await(std::chrono::milliseconds grace, const std::function<bool()>& cut);
  int forward(int sig) { return started() ? sup_.forward(sig) : 0; }
  void add_group(std::vector<pid_t>& groups) const;  // its process group, for the strays' search
  RankRecord record(int node_rank, Clock::time_point t0) const;

 private:
  const AttemptSetup& s_;
  int attempt_;
  process::WorkerSupervisor sup_;
  std::unique_ptr<process::OutputTail> tail_;
  std::string log_;
  bool signalled_ = false;  // launch signalled it while it ran
};

}  // namespace dd::launch
