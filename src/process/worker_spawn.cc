// fork/exec of one worker: everything is built before fork, the child calls only async-signal-safe functions
// (it may be forked from a process with threads), and reports a failed execve through a close-on-exec pipe.
#include "process/worker_spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "common/output_file.h"

namespace dd::process {
namespace {

// What the child needs, prepared in the parent.
struct ChildPlan {
  std::vector<std::string> env_strings;
  std::vector<char*> argv, envp;
  int log_fd = -1;    // stdout+stderr target, -1 = inherit
  int event_w = -1;   // write end of the event pipe, -1 = none
  int event_fd = -1;  // the fd number it gets in the worker
  int status_w = -1;  // exec-status pipe write end (close-on-exec)
  bool die_with_parent = false;
  pid_t parent = -1;
};

void build_argv_envp(ChildPlan& plan, const WorkerSpec& spec, const std::vector<std::string>& base_env) {
  for (const std::string& s : base_env) {
    bool overridden = false;
    for (const auto& [k, v] : spec.env) overridden |= s.compare(0, k.size() + 1, k + "=") == 0;
    if (!overridden) plan.env_strings.push_back(s);
  }
  for (const auto& [k, v] : spec.env) plan.env_strings.push_back(k + "=" + v);
  for (const auto& a : spec.argv) plan.argv.push_back(const_cast<char*>(a.c_str()));
  plan.argv.push_back(nullptr);
  for (auto& e : plan.env_strings) plan.envp.push_back(e.data());
  plan.envp.push_back(nullptr);
}

void report_errno_and_exit(int status_w, int err) {
  ssize_t n = ::write(status_w, &err, sizeof err);
  (void)n;
  _exit(127);
}

// The child between fork and execve. Async-signal-safe calls only.
[[noreturn]] void run_child(const ChildPlan& plan) {
  ::setpgid(0, 0);
  if (plan.die_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != plan.parent) _exit(127);  // the parent died before prctl took effect
  }
  // Dispositions and the mask survive execve: a launcher that ignores SIGPIPE or blocks SIGTERM must not
  // pass that on to the job.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);
  // Lift the sources above every target number first, so one dup2 cannot overwrite another's source.
  const int above = std::max(plan.event_fd, 2) + 1;
  int log_fd = plan.log_fd >= 0 ? ::fcntl(plan.log_fd, F_DUPFD_CLOEXEC, above) : -1;
  int event_w = plan.event_w >= 0 ? ::fcntl(plan.event_w, F_DUPFD_CLOEXEC, above) : -1;
  if ((plan.log_fd >= 0 && log_fd < 0) || (plan.event_w >= 0 && event_w < 0))
    report_errno_and_exit(plan.status_w, errno);
  if (event_w >= 0 && ::dup2(event_w, plan.event_fd) < 0) report_errno_and_exit(plan.status_w, errno);
  if (log_fd >= 0 && (::dup2(log_fd, 1) < 0 || ::dup2(log_fd, 2) < 0))
    report_errno_and_exit(plan.status_w, errno);
  ::execve(plan.argv[0], plan.argv.data(), plan.envp.data());
  report_errno_and_exit(plan.status_w, errno);
  _exit(127);
}

// Waits for the child's exec: EOF = it exec'd; 4 bytes = the errno of its failure.
int read_exec_status(int status_r) {
  int err = 0;
  for (;;) {
    ssize_t n = ::read(status_r, &err, sizeof err);
    if (n < 0 && errno == EINTR) continue;
    return n == ssize_t(sizeof err) ? err : 0;
  }
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Result<SpawnedWorker> spawn_worker(const WorkerSpec& spec, const std::vector<std::string>& base_env) {
  if (spec.argv.empty()) return Error::make(ErrorKind::invalid, "empty worker command");
  ChildPlan plan;
  build_argv_envp(plan, spec, base_env);
  plan.event_fd = spec.event_fd;
  plan.die_with_parent = spec.die_with_parent;
  plan.parent = ::getpid();
  int event[2] = {-1, -1}, status[2] = {-1, -1};
  auto cleanup = [&] {
    close_fd(event[0]);
    close_fd(event[1]);
    close_fd(status[0]);
    close_fd(status[1]);
    close_fd(plan.log_fd);
  };
  if (spec.event_fd >= 0 && ::pipe2(event, O_CLOEXEC) != 0) return Error::from_errno("pipe2");
  if (::pipe2(status, O_CLOEXEC) != 0) {
    Error e = Error::from_errno("pipe2");
    cleanup();
    return e;
  }
  if (!spec.log_path.empty()) {
    auto log = open_output_file(spec.log_path, {.truncate = true});  // a regular file, never a link's target
    if (!log) {
      cleanup();
      return log.error();
    }
    plan.log_fd = *log;
  }
  plan.event_w = event[1];
  plan.status_w = status[1];
  pid_t pid = ::fork();
  if (pid < 0) {
    Error e = Error::from_errno("fork");
    cleanup();
    return e;
  }
  if (pid == 0) run_child(plan);
  ::setpgid(pid, pid);  // also here, so the group exists before start() returns whatever the scheduling
  close_fd(event[1]);
  close_fd(status[1]);
  close_fd(plan.log_fd);
  int err = read_exec_status(status[0]);
  close_fd(status[0]);
  if (err != 0) {
    int ws = 0;
    while (::waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    close_fd(event[0]);
    return Error::sys(err, "cannot run " + spec.argv[0]);
  }
  SpawnedWorker w;
  w.pid = pid;
  w.event_fd = event[0];
  if (w.event_fd >= 0) ::fcntl(w.event_fd, F_SETFL, ::fcntl(w.event_fd, F_GETFL) | O_NONBLOCK);
  return w;
}

}  // namespace dd::process
