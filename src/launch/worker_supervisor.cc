// Worker supervisor: fork/exec with a private event pipe and a log file per worker, poll() over the
// pipes and pidfds, fail-fast stop with SIGTERM then SIGKILL.
#include "launch/worker_supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <thread>

namespace dd::launch {

std::string describe_wait_status(int ws) {
  if (WIFEXITED(ws)) return "exit status " + std::to_string(WEXITSTATUS(ws));
  if (WIFSIGNALED(ws)) {
    int s = WTERMSIG(ws);
    const char* abbrev = sigabbrev_np(s);
    return "killed by signal " + std::to_string(s) + (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
  }
  return "wait status " + std::to_string(ws);
}

WorkerSupervisor::~WorkerSupervisor() { stop_all(std::chrono::milliseconds(100)); }

Status WorkerSupervisor::start(const std::vector<WorkerSpec>& specs,
                               const std::vector<std::string>& base_env) {
  for (const auto& spec : specs) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return Error::from_errno("pipe2");
    // Build argv/envp before fork: the child only calls async-signal-safe functions.
    std::vector<std::string> env_strings;
    for (const std::string& s : base_env) {
      bool overridden = false;
      for (const auto& [k, v] : spec.env) overridden |= s.compare(0, k.size() + 1, k + "=") == 0;
      if (!overridden) env_strings.push_back(s);
    }
    for (const auto& [k, v] : spec.env) env_strings.push_back(k + "=" + v);
    std::vector<char*> argv, envp;
    for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    int logfd = -1;
    if (!spec.log_path.empty()) {
      logfd = ::open(spec.log_path.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0644);
      if (logfd < 0) return Error::from_errno("open " + spec.log_path);
    }
    pid_t pid = ::fork();
    if (pid < 0) return Error::from_errno("fork");
    if (pid == 0) {
      ::setpgid(0, 0);
      ::dup2(fds[1], spec.event_fd);  // dup2 clears O_CLOEXEC on the new fd
      if (logfd >= 0) {
        ::dup2(logfd, 1);
        ::dup2(logfd, 2);
      }
      ::execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    ::close(fds[1]);
    if (logfd >= 0) ::close(logfd);
    WorkerState st;
    st.pid = pid;
    st.event_fd = fds[0];
    ::fcntl(st.event_fd, F_SETFL, ::fcntl(st.event_fd, F_GETFL) | O_NONBLOCK);
#ifdef SYS_pidfd_open
    st.pidfd = int(::syscall(SYS_pidfd_open, pid, 0));
#endif
    w_.push_back(st);
  }
  return ok_status();
}

void WorkerSupervisor::drain(int i, const std::function<void(int, const std::string&)>& on_line) {
  WorkerState& w = w_[i];
  if (w.event_fd < 0) return;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(w.event_fd, buf, sizeof(buf));
    if (n > 0) {
      w.partial.append(buf, size_t(n));
      size_t pos;
      while ((pos = w.partial.find('\n')) != std::string::npos) {
        std::string line = w.partial.substr(0, pos);
        w.partial.erase(0, pos + 1);
        if (on_line) on_line(i, line);
      }
      continue;
    }
    if (n == 0) {  // writer closed: the worker exited (or closed fd 3)
      ::close(w.event_fd);
      w.event_fd = -1;
    }
    return;
  }
}

bool WorkerSupervisor::reap(int i) {
  WorkerState& w = w_[i];
  if (w.exited) return true;
  int ws = 0;
  pid_t r = ::waitpid(w.pid, &ws, WNOHANG);
  if (r == w.pid) {
    w.exited = true;
    w.wait_status = ws;
    if (w.pidfd >= 0) ::close(w.pidfd);
    w.pidfd = -1;
    return true;
  }
  return false;
}

bool WorkerSupervisor::watch(rendezvous::Deadline deadline,
                             const std::function<void(int, const std::string&)>& on_line,
                             const std::function<void(int)>& on_exit, const std::function<bool()>& stop) {
  for (;;) {
    std::vector<pollfd> pfds;
    bool any_pidfd_missing = false;
    for (auto& w : w_) {
      if (w.event_fd >= 0) pfds.push_back({w.event_fd, POLLIN, 0});
      if (!w.exited && w.pidfd >= 0) pfds.push_back({w.pidfd, POLLIN, 0});
      if (!w.exited && w.pidfd < 0) any_pidfd_missing = true;
    }
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - rendezvous::Clock::now()).count();
    if (left <= 0) return false;
    int timeout = int(std::min<int64_t>(left, any_pidfd_missing ? 20 : 200));
    ::poll(pfds.data(), pfds.size(), timeout);
    for (size_t i = 0; i < w_.size(); ++i) drain(int(i), on_line);
    bool all_done = true;
    for (size_t i = 0; i < w_.size(); ++i) {
      bool was = w_[i].exited;
      if (reap(int(i)) && !was) {
        drain(int(i), on_line);
        if (on_exit) on_exit(int(i));
      }
      all_done &= w_[i].exited;
    }
    if (all_done) return true;
    if (stop && stop()) return true;
  }
}

void WorkerSupervisor::stop_all(std::chrono::milliseconds grace) {
  bool any = false;
  for (auto& w : w_)
    if (!w.exited && w.pid > 0) {
      ::kill(-w.pid, SIGTERM);  // the worker's process group (it called setpgid)
      ::kill(w.pid, SIGTERM);
      w.killed_by_us = true;
      any = true;
    }
  if (!any) return;
  auto until = rendezvous::Clock::now() + grace;
  for (;;) {
    bool all = true;
    for (size_t i = 0; i < w_.size(); ++i) all &= reap(int(i));
    if (all) break;
    if (rendezvous::Clock::now() > until) {
      for (auto& w : w_)
        if (!w.exited) {
          ::kill(-w.pid, SIGKILL);
          ::kill(w.pid, SIGKILL);
        }
      for (auto& w : w_)
        if (!w.exited) {
          int ws = 0;
          if (::waitpid(w.pid, &ws, 0) == w.pid) {
            w.exited = true;
            w.wait_status = ws;
          }
        }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (auto& w : w_) {
    if (w.event_fd >= 0) ::close(w.event_fd);
    if (w.pidfd >= 0) ::close(w.pidfd);
    w.event_fd = w.pidfd = -1;
  }
}

}  // namespace dd::launch
