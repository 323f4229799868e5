// stop_strays (see strays.h): signals, reaps, scans again.
#include "process/strays.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <thread>

namespace dd::process {

namespace {

constexpr auto kKillFor = std::chrono::seconds(1);
constexpr int kMaxScans = 2000;

void signal_stray(const Stray& s, int sig) {
  if (s.group > 1) ::kill(-s.group, sig);  // its group: what it forked since the scan, before a setsid
  ::kill(s.pid, sig);
}

}  // namespace

StraysStopped stop_strays(const std::function<std::vector<Stray>()>& scan, std::chrono::milliseconds grace,
                          const std::function<bool()>& cut_short) {
  StraysStopped out;
  std::set<pid_t> seen, termed;
  auto rescan = [&] {
    ++out.scans;
    std::vector<Stray> v = scan();
    for (const auto& s : v) {
      if (!seen.insert(s.pid).second) continue;
      if (out.found.size() < kStraysNamed)
        out.found.push_back(s);
      else
        ++out.more;
    }
    return v;
  };
  // A scan that finds nothing is taken only when the next one, a moment later, agrees: a process caught while
  // its parent exits reads with a parent that is gone (its re-parenting to us not yet visible), so one scan
  // can miss the whole chain of a process that forks and exits in a loop.
  auto settled_rescan = [&] {
    std::vector<Stray> v = rescan();
    if (v.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      v = rescan();
    }
    return v;
  };
  auto reap = [&] {  // those re-parented to us; another's child is reaped by its parent (ECHILD here)
    for (pid_t p : seen) ::waitpid(p, nullptr, WNOHANG);
  };
  using Clock = std::chrono::steady_clock;
  std::vector<Stray> now = settled_rescan();
  const auto term_until = Clock::now() + grace;
  while (!now.empty()) {
    for (const auto& s : now)
      if (termed.insert(s.pid).second) signal_stray(s, SIGTERM);
    if (Clock::now() >= term_until || (cut_short && cut_short())) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    reap();
    now = settled_rescan();
  }
  // A process that forks and exits in a loop outruns one scan: each SIGKILL round is followed by a scan at
  // once, and its group is killed with it (what it forked before its next setsid).
  const auto kill_until = Clock::now() + kKillFor;
  while (!now.empty()) {
    for (const auto& s : now) signal_stray(s, SIGKILL);
    std::this_thread::sleep_for(std::chrono::microseconds(500));
    reap();
    if (Clock::now() >= kill_until || out.scans >= kMaxScans) {
      out.left = rescan();
      break;
    }
    now = settled_rescan();
  }
  reap();
  return out;
}

}  // namespace dd::process
