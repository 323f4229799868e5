// py_spy_dump: `py-spy dump --pid PID` in its own process group, stdout and stderr read through poll() until
// both close or the deadline passes (then the group is SIGKILLed). stdout is capped at 256 KiB.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "probe/path_lookup.h"
#include "probe/proc_probe.h"

extern char** environ;

namespace dd::probe {
namespace {

constexpr size_t kStackCap = 256 * 1024;
constexpr size_t kStderrCap = 16 * 1024;

int64_t spy_now_ms() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

// Forks argv with stdout -> out[1], stderr -> err[1], stdin from /dev/null; -1 when fork fails.
pid_t spawn_spy(std::vector<char*>& argv, int out_w, int err_w) {
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

// Reads both pipes until EOF on both or the deadline; false on timeout.
bool read_until_eof(int out_r, int err_r, int64_t deadline, std::string& out, std::string& err) {
  pollfd p[2] = {{out_r, POLLIN, 0}, {err_r, POLLIN, 0}};
  std::string* into[2] = {&out, &err};
  const size_t cap[2] = {kStackCap, kStderrCap};
  char buf[65536];
  while (p[0].fd >= 0 || p[1].fd >= 0) {
    int64_t left = deadline - spy_now_ms();
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

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

PyStack py_spy_dump(pid_t pid, const std::string& path_env, int deadline_ms) {
  PyStack res;
  const std::string exe = find_on_path("py-spy", path_env);
  if (exe.empty()) {
    res.error = "py-spy not on PATH";
    return res;
  }
  std::vector<std::string> args = {exe, "dump", "--pid", std::to_string(pid)};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    res.error = "pipe2 failed";
    return res;
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    res.error = "pipe2 failed";
    return res;
  }
  const int64_t deadline = spy_now_ms() + deadline_ms;
  pid_t child = spawn_spy(argv, out[1], err[1]);
  ::close(out[1]);
  ::close(err[1]);
  std::string stderr_text;
  bool done = child > 0 && read_until_eof(out[0], err[0], deadline, res.text, stderr_text);
  ::close(out[0]);
  ::close(err[0]);
  if (child < 0) {
    res.error = "fork failed";
    return res;
  }
  int ws = 0;
  if (!done) {
    ::kill(-child, SIGKILL);
    ::kill(child, SIGKILL);
  }
  while (::waitpid(child, &ws, 0) < 0 && errno == EINTR) {
  }
  if (!done) {
    res.error = "py-spy timed out after " + std::to_string(deadline_ms) + " ms";
  } else if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) {
    res.ok = true;
  } else {
    std::string why = trimmed(stderr_text);
    if (why.empty())
      why = WIFEXITED(ws) ? "py-spy exited with status " + std::to_string(WEXITSTATUS(ws))
                          : "py-spy killed by signal " + std::to_string(WTERMSIG(ws));
    res.error = why;
  }
  return res;
}

}  // namespace dd::probe
