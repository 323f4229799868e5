// Starting one worker process for WorkerSupervisor: fork, its own process group, log file, event pipe, and an
// exec-status pipe so that a program that cannot be run is an error of the launcher, not a worker exiting
// 127.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "common/result.h"
#include "process/worker_supervisor.h"

namespace dd::process {

struct SpawnedWorker {
  pid_t pid = -1;
  int event_fd = -1;  // our read end of its event pipe (O_NONBLOCK, O_CLOEXEC), -1 = none
};

// Forks and execs spec.argv with base_env plus spec.env; returns once the child has exec'd (or failed to).
Result<SpawnedWorker> spawn_worker(const WorkerSpec& spec, const std::vector<std::string>& base_env);

}  // namespace dd::process
