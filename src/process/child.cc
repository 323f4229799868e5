// Fork/pipe/poll implementation of Children; SIGKILL at the deadline, bounded reaping.
#include "process/child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <string_view>
#include <thread>

namespace dd::process {
namespace {

int64_t now_ms() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

// Ends every complete answer: the parent that sees it needs no exit status and does not wait for the child's
// exit (a GPU probe's teardown, its NVML handles let go by the kernel, took 10-30 ms on 4x H100).
constexpr std::string_view kAnswerEnd{"\0distdoctor-answer-end", 22};

// Reaps a child whose complete answer arrived, in the background (it is exiting).
void reap_later(pid_t pid) {
  std::thread([pid] {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
  }).detach();
}

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += size_t(n);
  }
}

// Reaps pid: blocking when it has exited (EOF seen), else SIGKILL and at most ~100 ms of polling, so a child
// stuck in the kernel (D state) is left behind rather than hanging us.
int reap(pid_t pid, bool kill_first) {
  int st = 0;
  if (kill_first) {
    kill(pid, SIGKILL);
    for (int t = 0; t < 100; ++t) {
      pid_t r = waitpid(pid, &st, WNOHANG);
      if (r == pid || (r < 0 && errno != EINTR)) return st;
      usleep(1000);
    }
    return -1;
  }
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return st;
}

}  // namespace

size_t Children::start(const ChildFn& fn, int deadline_ms) {
  Kid k;
  k.deadline_ms = deadline_ms;
  k.started = now_ms();
  k.deadline = k.started + deadline_ms;
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    k.start_error = std::string("pipe: ") + std::strerror(errno);
    k.eof = true;
    kids_.push_back(std::move(k));
    return kids_.size() - 1;
  }
  const bool keep_stderr = keep_stderr_;
  pid_t pid = fork();
  if (pid < 0) {
    k.start_error = std::string("fork: ") + std::strerror(errno);
    k.eof = true;
    close(p[0]);
    close(p[1]);
    kids_.push_back(std::move(k));
    return kids_.size() - 1;
  }
  if (pid == 0) {
    close(p[0]);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      dup2(devnull, 1);
      if (!keep_stderr) dup2(devnull, 2);  // DISTDOCTOR_PROBE_TIMING: a probe's own phase times reach stderr
    }
    std::string ans;
    try {
      ans = fn();
    } catch (...) {
      _exit(3);
    }
    write_all(p[1], ans + std::string(kAnswerEnd));
    close(p[1]);  // EOF for the parent now, before this process's teardown
    _exit(0);
  }
  close(p[1]);
  k.pid = pid;
  k.fd = p[0];
  kids_.push_back(std::move(k));
  return kids_.size() - 1;
}

std::vector<Result<std::string>> Children::wait() {
  for (;;) {
    std::vector<pollfd> pfds;
    std::vector<size_t> who;
    int64_t now = now_ms(), next = -1;
    for (size_t i = 0; i < kids_.size(); ++i) {
      Kid& k = kids_[i];
      if (k.eof || k.deadline <= now) continue;
      pfds.push_back({k.fd, POLLIN, 0});
      who.push_back(i);
      if (next < 0 || k.deadline < next) next = k.deadline;
    }
    if (pfds.empty()) break;
    int n = poll(pfds.data(), pfds.size(), int(next - now));
    if (n <= 0) continue;  // EINTR or a deadline passed: recompute
    for (size_t j = 0; j < pfds.size(); ++j) {
      if (!pfds[j].revents) continue;
      Kid& k = kids_[who[j]];
      char buf[65536];
      ssize_t r = ::read(k.fd, buf, sizeof(buf));
      if (r > 0)
        k.out.append(buf, size_t(r));
      else if (r == 0 || errno != EINTR)
        k.eof = true;
      if (k.eof) k.finished = now_ms();
    }
  }
  std::vector<Result<std::string>> res;
  elapsed_.clear();
  for (Kid& k : kids_) {
    elapsed_.push_back(k.pid < 0 ? 0 : (k.finished ? k.finished : now_ms()) - k.started);
    if (k.pid < 0) {
      res.emplace_back(Error{k.start_error, 0});
      continue;
    }
    const bool timed_out = !k.eof;
    const bool complete = !timed_out && k.out.size() >= kAnswerEnd.size() &&
                          std::string_view(k.out).substr(k.out.size() - kAnswerEnd.size()) == kAnswerEnd;
    if (complete) {
      k.out.resize(k.out.size() - kAnswerEnd.size());
      reap_later(k.pid);
      close(k.fd);
      k.pid = -1;
      res.emplace_back(std::move(k.out));
      continue;
    }
    int st = reap(k.pid, timed_out);
    close(k.fd);
    k.pid = -1;
    if (timed_out)
      res.emplace_back(Error{"timed out after " + std::to_string(k.deadline_ms) + " ms", 0});
    else if (WIFSIGNALED(st))
      res.emplace_back(
          Error{"crashed: signal " + std::to_string(WTERMSIG(st)) + " (" + strsignal(WTERMSIG(st)) + ")", 0});
    else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
      res.emplace_back(Error{"exited with status " + std::to_string(WEXITSTATUS(st)), 0});
    else
      res.emplace_back(std::move(k.out));
  }
  kids_.clear();
  return res;
}

Children::~Children() {
  for (Kid& k : kids_)
    if (k.pid > 0) {
      reap(k.pid, true);
      close(k.fd);
    }
}

std::vector<Result<std::string>> run_children(const std::vector<ChildFn>& fns, int deadline_ms) {
  Children c;
  for (const auto& f : fns) c.start(f, deadline_ms);
  return c.wait();
}

}  // namespace dd::process
