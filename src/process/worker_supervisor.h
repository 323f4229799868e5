// WorkerSupervisor: starts worker processes (fork/exec), reads the event lines each writes on its own
// pipe, notices a dead worker at once (pidfd, else waitpid polling), and stops the others.
#pragma once
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"

namespace dd::process {

struct WorkerSpec {
  std::vector<std::string> argv;                         // argv[0] is the program path
  std::vector<std::pair<std::string, std::string>> env;  // set on top of this process's environment
  std::string log_path;          // stdout+stderr, truncated, O_APPEND (output_file.h); "" = inherit
  int event_fd = 3;              // fd number the worker writes events to; -1 = no event pipe
  bool die_with_parent = false;  // PR_SET_PDEATHSIG(SIGKILL): the worker dies with the thread that started
                                 // it (start() from the main thread, which lives as long as the launcher)
};

struct WorkerState {
  pid_t pid = -1;
  int pidfd = -1;
  int event_fd = -1;  // our read end
  bool exited = false;
  int wait_status = 0;
  bool killed_by_us = false;
  bool group_empty = false;  // reaped and its process group seen empty: never signalled again (pid reuse)
  bool let_exit = false;     // said it was done and left to exit unwatched (let_exit()): counted as exit 0
  std::chrono::steady_clock::time_point ended;  // when it was reaped (valid once exited)
  std::string partial;                          // bytes after the last newline
};

// "exit status 3", "killed by signal 9 (SIGKILL)".
std::string describe_wait_status(int wait_status);

class WorkerSupervisor {
 public:
  ~WorkerSupervisor();
  // Starts one process per spec, each in its own process group (after the workers of an earlier let_exit()
  // are reaped, at most 10 s); each child's environment is base_env (the caller's, as read by
  // probe::read_self_process) with spec.env laid over it. A program that cannot be run
  // is an Error ("cannot run PROG: No such file or directory"); the workers started before it stay in
  // workers() for stop_all().
  Status start(const std::vector<WorkerSpec>& specs, const std::vector<std::string>& base_env);
  // Runs until every worker has exited, `stop()` returns true, or the deadline passes (then returns false).
  // on_line(worker, line) gets each event line; on_exit(worker) runs when a worker is reaped.
  bool watch(std::chrono::steady_clock::time_point deadline,
             const std::function<void(int, const std::string&)>& on_line,
             const std::function<void(int)>& on_exit, const std::function<bool()>& stop);
  // first_signal to every worker's process group (and to a live worker itself), SIGKILL after `grace` to the
  // groups still holding processes; reaps every worker. Live workers get killed_by_us. It returns before
  // `grace` only when every group is empty: make the launcher a child subreaper (PR_SET_CHILD_SUBREAPER) so
  // that the workers' orphaned children come back to it and are reaped here rather than waiting as zombies.
  // cut_short, when given, is asked while the grace runs: true ends it at once (a second Ctrl-C).
  void stop_all(std::chrono::milliseconds grace = std::chrono::milliseconds(300), int first_signal = SIGTERM,
                const std::function<bool()>& cut_short = {});
  // Workers that told the caller they are done and only exit now: not waited for. Each is reaped by a
  // thread of its own, counts as exited with status 0 and is never signalled again (its pid may be reused).
  // The next start() in this process waits (at most 10 s) until they are reaped.
  void let_exit();
  // Passes sig on (a scheduler's SIGUSR1, say) to every worker's process group that may still hold a process
  // (a live worker that left its group, by its pid), each process once, without marking anyone stopped;
  // returns how many groups it reached.
  int forward(int sig);
  const std::vector<WorkerState>& workers() const { return w_; }

 private:
  void drain(int i, const std::function<void(int, const std::string&)>& on_line);
  bool reap(int i);  // waitpid without blocking; true once reaped
  void mark_reaped(int i, int wait_status);
  void signal_all(int sig, bool mark_killed);
  bool all_gone();  // every worker reaped and every worker's process group empty
  std::vector<WorkerState> w_;
};

}  // namespace dd::process
