// stop_strays (see strays.h): signals, then reaps.
#include "process/strays.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

namespace dd::process {

namespace {

bool gone(pid_t pid) {
  // Reap it if it is our zombie; a pid that is no longer our child is gone from our point of view.
  pid_t r = ::waitpid(pid, nullptr, WNOHANG);
  return r == pid || (r < 0 && errno == ECHILD);
}

}  // namespace

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
