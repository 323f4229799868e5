// Worker supervisor: fork/exec with a private event pipe and a log file per worker, poll() over the
// pipes and pidfds, fail-fast stop with SIGTERM then SIGKILL.
#include "process/worker_supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "common/signal_name.h"
#include "process/worker_spawn.h"

namespace dd::process {

std::string describe_wait_status(int ws) {
  if (WIFEXITED(ws)) return "exit status " + std::to_string(WEXITSTATUS(ws));
  if (WIFSIGNALED(ws)) {
    const int s = WTERMSIG(ws);
    const std::string abbrev = signal_abbrev(s);
    return "killed by signal " + std::to_string(s) + (abbrev.empty() ? "" : " (" + abbrev + ")");
  }
  return "wait status " + std::to_string(ws);
}

WorkerSupervisor::~WorkerSupervisor() { stop_all(std::chrono::milliseconds(100)); }

namespace {

// Workers let exit unwatched (let_exit) that are not reaped yet, in this whole process: a new start waits for
// them, so that a command making run after run (bench --tune, a sweep) never has one run's workers set up
// beside the last run's still freeing their GPU memory.
struct Exiting {
  std::mutex mu;
  std::condition_variable cv;
  size_t count = 0;
};
Exiting& exiting() {
  static Exiting* e = new Exiting;  // never destroyed: reaper threads may outlive main
  return *e;
}

}  // namespace

Status WorkerSupervisor::start(const std::vector<WorkerSpec>& specs,
                               const std::vector<std::string>& base_env) {
  {
    std::unique_lock<std::mutex> lock(exiting().mu);
    exiting().cv.wait_for(lock, std::chrono::seconds(10), [] { return exiting().count == 0; });
  }
  for (const auto& spec : specs) {
    auto spawned = spawn_worker(spec, base_env);
    if (!spawned) return spawned.error();
    WorkerState st;
    st.pid = spawned->pid;
    st.event_fd = spawned->event_fd;
#ifdef SYS_pidfd_open
    st.pidfd = int(::syscall(SYS_pidfd_open, st.pid, 0));
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

void WorkerSupervisor::mark_reaped(int i, int wait_status) {
  WorkerState& w = w_[i];
  w.exited = true;
  w.wait_status = wait_status;
  w.ended = std::chrono::steady_clock::now();
  w.group_empty = ::kill(-w.pid, 0) != 0 && errno == ESRCH;
  if (w.pidfd >= 0) ::close(w.pidfd);
  w.pidfd = -1;
}

bool WorkerSupervisor::reap(int i) {
  WorkerState& w = w_[i];
  if (w.exited) return true;
  int ws = 0;
  if (::waitpid(w.pid, &ws, WNOHANG) != w.pid) return false;
  mark_reaped(i, ws);
  return true;
}

bool WorkerSupervisor::watch(std::chrono::steady_clock::time_point deadline,
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
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now())
            .count();
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

void WorkerSupervisor::let_exit() {
  for (auto& w : w_) {
    if (w.exited) continue;
    {
      std::lock_guard<std::mutex> lock(exiting().mu);
      ++exiting().count;
    }
    std::thread([pid = w.pid] {
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      std::lock_guard<std::mutex> lock(exiting().mu);
      --exiting().count;
      exiting().cv.notify_all();
    }).detach();
    w.exited = w.let_exit = w.group_empty = true;
    w.wait_status = 0;
    w.ended = std::chrono::steady_clock::now();
    if (w.pidfd >= 0) ::close(w.pidfd);
    if (w.event_fd >= 0) ::close(w.event_fd);
    w.pidfd = w.event_fd = -1;
  }
}

// Signals every worker's process group; the leader too when it is not reaped yet (it may have left its
// group). Groups of reaped workers are signalled as well while they have members: the worker's children (a
// reaped leader's pid is not reused while its group has members; once seen empty, it may be).
void WorkerSupervisor::signal_all(int sig, bool mark) {
  for (auto& w : w_) {
    if (w.pid <= 0 || w.group_empty) continue;
    ::kill(-w.pid, sig);
    if (w.exited) continue;
    ::kill(w.pid, sig);
    if (mark) w.killed_by_us = true;
  }
}

// Each process once: a second SIGUSR1 could reach a worker whose handler has ended and restored the default
// action (Python does so as it exits), and kill it. So the leader gets it through its group, and by its pid
// only when it left that group.
int WorkerSupervisor::forward(int sig) {
  int reached = 0;
  for (auto& w : w_) {
    if (w.pid <= 0) continue;
    if (w.exited && !w.group_empty)  // a reaped worker's group seen empty is never signalled again (pid free)
      w.group_empty = ::kill(-w.pid, 0) != 0 && errno == ESRCH;
    if (w.group_empty) continue;
    bool hit = ::kill(-w.pid, sig) == 0;
    if (!w.exited && ::getpgid(w.pid) != w.pid) hit |= ::kill(w.pid, sig) == 0;
    reached += hit;
  }
  return reached;
}

bool WorkerSupervisor::all_gone() {
  bool all = true;
  for (size_t i = 0; i < w_.size(); ++i) all &= reap(int(i));
  for (auto& w : w_) {
    if (!w.exited || w.group_empty) continue;
    // Members re-parented to us (when the launcher is a child subreaper) are reaped here: a zombie still
    // counts as a member, and init may take seconds to reap one.
    while (::waitpid(-w.pid, nullptr, WNOHANG) > 0) {
    }
    w.group_empty = ::kill(-w.pid, 0) != 0 && errno == ESRCH;
    all &= w.group_empty;
  }
  return all;
}

void WorkerSupervisor::stop_all(std::chrono::milliseconds grace, int first_signal,
                                const std::function<bool()>& cut_short) {
  signal_all(first_signal, true);
  const auto until = std::chrono::steady_clock::now() + grace;
  while (!all_gone()) {
    if (std::chrono::steady_clock::now() > until || (cut_short && cut_short())) {
      signal_all(SIGKILL, false);
      for (size_t i = 0; i < w_.size(); ++i) {
        if (w_[i].exited) continue;
        int ws = 0;
        pid_t r;
        while ((r = ::waitpid(w_[i].pid, &ws, 0)) < 0 && errno == EINTR) {
        }
        if (r == w_[i].pid) mark_reaped(int(i), ws);
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

}  // namespace dd::process
