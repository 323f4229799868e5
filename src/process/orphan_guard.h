// OrphanGuard: a small process forked before any worker or thread. When the launcher dies without dismissing
// it (SIGKILL, a crash), its pipe reads end-of-file and it SIGKILLs every worker process group the launcher
// registered, so no worker outlives the launcher, then removes the directory registered with watch_dir (a
// run's temporary directory). It ignores the signals the launcher handles (INT, TERM, HUP, QUIT, USR1, USR2,
// ALRM) and goes by its own name, "dd-orphan-guard", so that a kill by the launcher's name misses it (why:
// orphan_guard.cc).
#pragma once
#include <sys/types.h>

#include <memory>
#include <string>

#include "common/result.h"

namespace dd::process {

class OrphanGuard {
 public:
  // Forks the guard. Call before any thread starts (the child runs only async-signal-safe code anyway).
  // own_args: this process's argument area (probe::read_argument_area), which the guard's copy overwrites
  // with its name; null leaves the guard's command line the launcher's.
  static Result<std::unique_ptr<OrphanGuard>> start(char* own_args = nullptr, size_t own_args_size = 0);
  ~OrphanGuard();  // dismisses
  OrphanGuard(const OrphanGuard&) = delete;
  OrphanGuard& operator=(const OrphanGuard&) = delete;

  void watch_group(pid_t pgid);   // kill this group if the launcher dies
  void forget_group(pid_t pgid);  // its workers are reaped and the group is empty
  // Remove this directory (files and subdirectories, 4 levels deep) if the launcher dies; one at a time.
  void watch_dir(const std::string& path);
  void dismiss();  // normal end: the guard exits without killing anything
  pid_t pid() const { return pid_; }

 private:
  OrphanGuard(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  pid_t pid_ = -1;
  int fd_ = -1;  // write end of the guard's pipe (O_CLOEXEC: workers never hold it)
};

}  // namespace dd::process
