// run_program: fork/exec with two pipes, poll() until both close or the deadline, SIGKILL to the group then.
#include "process/run_program.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace dd::process {

namespace {

using Clock = std::chrono::steady_clock;

// Forks argv with stdout -> out_w, stderr -> err_w, stdin from /dev/null, in a process group of its own.
pid_t spawn(const std::vector<std::string>& args, int out_w, int err_w) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::setpgid(0, 0);
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, 0);
  ::dup2(out_w, 1);
  ::dup2(err_w, 2);
  ::execve(argv[0], argv.data(), environ);
  _exit(127);
}

// Reads both pipes until both close or the deadline; false on timeout.
bool read_until_eof(int out_r, int err_r, Clock::time_point deadline, const ProgramLimits& lim,
                    ProgramResult& res) {
  pollfd p[2] = {{out_r, POLLIN, 0}, {err_r, POLLIN, 0}};
  std::string* into[2] = {&res.out, &res.err};
  const size_t cap[2] = {lim.stdout_cap, lim.stderr_cap};
  char buf[65536];
  while (p[0].fd >= 0 || p[1].fd >= 0) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now())
                          .count();  // up: 0.7 ms left is not 0
    if (left <= 0) return false;
    if (::poll(p, 2, int(left)) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (p[i].fd < 0 || !p[i].revents) continue;
      ssize_t n = ::read(p[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        p[i].fd = -1;  // closed by the caller
        continue;
      }
      into[i]->append(buf, std::min(size_t(n), cap[i] - std::min(cap[i], into[i]->size())));
    }
  }
  return true;
}

}  // namespace

bool ProgramResult::exited_ok() const {
  return started && !timed_out && WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
}

ProgramResult run_program(const std::vector<std::string>& argv, const ProgramLimits& limits) {
  ProgramResult res;
  if (argv.empty()) {
    res.error = "no program to run";
    return res;
  }
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    res.error = std::string("pipe2: ") + std::strerror(errno);
    return res;
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    res.error = std::string("pipe2: ") + std::strerror(errno);
    ::close(out[0]);
    ::close(out[1]);
    return res;
  }
  const auto deadline = Clock::now() + std::chrono::milliseconds(limits.deadline_ms);
  const pid_t child = spawn(argv, out[1], err[1]);
  const int fork_errno = errno;
  ::close(out[1]);
  ::close(err[1]);
  const bool done = child > 0 && read_until_eof(out[0], err[0], deadline, limits, res);
  ::close(out[0]);
  ::close(err[0]);
  if (child < 0) {
    res.error = std::string("fork: ") + std::strerror(fork_errno);
    return res;
  }
  res.started = true;
  if (!done) {
    res.timed_out = true;
    ::kill(-child, SIGKILL);
    ::kill(child, SIGKILL);
  }
  while (::waitpid(child, &res.wait_status, 0) < 0 && errno == EINTR) {
  }
  return res;
}

}  // namespace dd::process
