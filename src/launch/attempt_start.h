// Starting one attempt's workers on this node: the layout the nodes agree on, every log file made first, the
// debug hooks, each worker's record, command and environment (every launcher convention that is on:
// worker_env), the start lines, then the processes (a convention's companion process first: MindSpore's
// scheduler). What could not be started is a stop for the node agent to raise.
#pragma once
#include <functional>
#include <optional>

#include "launch/attempt.h"
#include "launch/companion_runner.h"
#include "launch/debug_hooks.h"
#include "launch/worker_set.h"

namespace dd::launch {

class AttemptStart {
 public:
  AttemptStart(const AttemptSetup& s, int attempt, WorkerSet& workers, CompanionRunner& companion,
               std::function<void()> erase_status)
      : s_(s),
        attempt_(attempt),
        w_(workers),
        companion_(companion),
        erase_status_(std::move(erase_status)) {}
  // The stop to raise when something could not be started (those started before it run); none when all run.
  std::optional<StopEvent> run();

 private:
  WorkerEnvOptions env_options() const;
  Status prepare_logs(const WorkerEnvOptions& eo);
  process::WorkerSpec worker_spec(int local_rank, const WorkerEnvOptions& eo);
  std::optional<StopEvent> start_companion(const WorkerEnvOptions& eo);
  StopEvent start_failed(const Error& e) const;  // the worker after the last one started (exit 127)

  const AttemptSetup& s_;
  int attempt_;
  WorkerSet& w_;
  CompanionRunner& companion_;
  std::function<void()> erase_status_;
  JobLayout layout_;
  DebugHookPaths hooks_;
  DebugHookOptions hook_opt_;
};

}  // namespace dd::launch
