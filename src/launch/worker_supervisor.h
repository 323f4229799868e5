// WorkerSupervisor: starts worker processes (fork/exec), reads the event lines each writes on its own
// pipe, notices a dead worker at once (pidfd, else waitpid polling), and stops the others.
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "rendezvous/store.h"

namespace dd::launch {

struct WorkerSpec {
  std::vector<std::string> argv;                         // argv[0] is the program path
  std::vector<std::pair<std::string, std::string>> env;  // set on top of this process's environment
  std::string log_path;                                  // stdout+stderr go here ("" = inherit)
  int event_fd = 3;                                      // fd number the worker writes events to
};

struct WorkerState {
  pid_t pid = -1;
  int pidfd = -1;
  int event_fd = -1;  // our read end
  bool exited = false;
  int wait_status = 0;
  bool killed_by_us = false;
  std::string partial;  // bytes after the last newline
};

// "exit status 3", "killed by signal 9 (SIGKILL)".
std::string describe_wait_status(int wait_status);

class WorkerSupervisor {
 public:
  ~WorkerSupervisor();
  // Starts one process per spec; each child's environment is base_env (the caller's, as read by
  // probe::read_self_process) with spec.env laid over it.
  Status start(const std::vector<WorkerSpec>& specs, const std::vector<std::string>& base_env);
  // Runs until every worker has exited, `stop()` returns true, or the deadline passes (then returns false).
  // on_line(worker, line) gets each event line; on_exit(worker) runs when a worker is reaped.
  bool watch(rendezvous::Deadline deadline, const std::function<void(int, const std::string&)>& on_line,
             const std::function<void(int)>& on_exit, const std::function<bool()>& stop);
  // SIGTERM to every live worker, SIGKILL after `grace`, reaps them all.
  void stop_all(std::chrono::milliseconds grace = std::chrono::milliseconds(300));
  const std::vector<WorkerState>& workers() const { return w_; }

 private:
  void drain(int i, const std::function<void(int, const std::string&)>& on_line);
  bool reap(int i);
  std::vector<WorkerState> w_;
};

}  // namespace dd::launch
