// find_strays and stop_strays (see strays.h). /proc/PID/stat gives the parent and process group (fields 4 and
// 5, after the command name in parentheses, which may itself hold spaces and parentheses).
#include "process/strays.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/redact.h"

namespace dd::process {

namespace {

struct Stat {
  char state = '?';
  pid_t ppid = 0, pgid = 0;
  std::string name;
};

bool read_stat(pid_t pid, Stat& s) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return false;
  size_t open = line.find('('), close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  s.name = line.substr(open + 1, close - open - 1);
  std::istringstream rest(line.substr(close + 1));
  return static_cast<bool>(rest >> s.state >> s.ppid >> s.pgid);
}

std::string command_of(pid_t pid, const std::string& name) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string cmd(160, '\0');
  f.read(cmd.data(), std::streamsize(cmd.size()));
  cmd.resize(size_t(f.gcount()));
  for (char& c : cmd)
    if (c != '\0' && !std::isprint(static_cast<unsigned char>(c))) c = ' ';
  cmd = redact_command_line(cmd);  // untrusted text: "--api-key X" is hidden where it enters
  return cmd.empty() ? "(" + name + ")" : cmd;
}

bool gone(pid_t pid) {
  // Reap it if it is our zombie; a pid that is no longer our child is gone from our point of view.
  pid_t r = ::waitpid(pid, nullptr, WNOHANG);
  return r == pid || (r < 0 && errno == ECHILD);
}

}  // namespace

std::vector<Stray> find_strays(const std::vector<pid_t>& exclude) {
  std::vector<Stray> out;
  const pid_t self = ::getpid(), group = ::getpgrp();
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
    pid_t pid = pid_t(std::atol(e->d_name));
    Stat s;
    if (!read_stat(pid, s) || s.ppid != self || s.pgid == group || s.state == 'Z') continue;
    if (std::find(exclude.begin(), exclude.end(), pid) != exclude.end()) continue;
    out.push_back({pid, command_of(pid, s.name)});
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const Stray& a, const Stray& b) { return a.pid < b.pid; });
  return out;
}

void stop_strays(const std::vector<Stray>& strays, std::chrono::milliseconds grace) {
  auto signal_all = [&](int sig) {
    for (const auto& s : strays) {
      if (::getpgid(s.pid) == s.pid) ::kill(-s.pid, sig);  // it leads a group (setsid): its children too
      ::kill(s.pid, sig);
    }
  };
  signal_all(SIGTERM);
  const auto until = std::chrono::steady_clock::now() + grace;
  auto all_gone = [&] {
    bool all = true;
    for (const auto& s : strays) all &= gone(s.pid);  // every one is reaped, not only up to the first alive
    return all;
  };
  while (!all_gone()) {
    if (std::chrono::steady_clock::now() >= until) {
      signal_all(SIGKILL);
      // Reaped as they go; one stuck in the kernel (state D) is left after a second rather than waited on.
      for (auto cap = std::chrono::steady_clock::now() + std::chrono::seconds(1);
           !all_gone() && std::chrono::steady_clock::now() < cap;)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace dd::process
