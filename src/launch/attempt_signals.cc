// The node agent and the launcher's signals (launch/stop_signals.h): what a scheduler sends the job (Slurm's
// --signal=USR1@T, a checkpoint request) is passed on to every worker's process group, as srun and torchrun
// users expect, and never ends the launcher: the job's outcome is what the workers then do. A stop signal
// that arrives while a stop is under way ends the grace period, for the workers and for what they left
// behind (stop_strays: the job's last processes, stopped here with the same grace).
#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "common/signal_name.h"
#include "launch/attempt_agent.h"
#include "probe/stray_children.h"

namespace dd::launch {

namespace {

constexpr size_t kSignalNotes = 16;  // notes kept per attempt; the rest are counted

std::string clock_text(int64_t wall_ms) {
  const std::time_t secs = std::time_t(wall_ms / 1000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char when[16];
  std::strftime(when, sizeof when, "%H:%M:%S", &tm);
  return fmt::format("{}.{:03}", when, wall_ms % 1000);
}

}  // namespace

void AttemptAgent::forward_signals(const char* why_not) {
  for (int sig : take_forward_signals()) {
    int groups = 0;
    if (!why_not) {
      groups = sup_.forward(sig);
      groups += companion_.forward(sig);
    }
    const std::string where =
        groups > 0 ? fmt::format("passed on to {} worker process group{}", groups, groups == 1 ? "" : "s")
                   : fmt::format("not passed on: {}", why_not ? why_not : "no worker process was left");
    if (signal_notes_.size() < kSignalNotes)
      signal_notes_.push_back(
          fmt::format("{} at {}: {}", signal_name(sig), clock_text(wall_ms(Clock::now())), where));
    else
      ++signal_notes_more_;
  }
}

// Launch is a child subreaper: what the workers started and left outside their groups came back to it, and
// what descends from those. The workers' groups are the job's even with their leaders gone.
void AttemptAgent::stop_strays(NodeRecord& n) {
  std::vector<pid_t> own, groups;
  if (s_.guard) own.push_back(s_.guard->pid());
  for (const auto& w : sup_.workers()) groups.push_back(w.pid);
  companion_.add_group(groups);
  const auto grace = std::chrono::milliseconds(int64_t(std::min(joined().job.grace_s, 2.0) * 1000));
  const process::StraysStopped st =
      process::stop_strays([&] { return probe::find_strays(own, groups); },
                           grace_cut() ? grace.zero() : grace, [this] { return grace_cut(); });
  auto text = [&](const process::Stray& s) {
    const bool left = std::any_of(st.left.begin(), st.left.end(), [&](auto& l) { return l.pid == s.pid; });
    return fmt::format(
        "pid {}: {}{}", s.pid, s.command,
        left ? fmt::format(" (still running after {} scans: it could not be stopped)", st.scans) : "");
  };
  for (const auto& s : st.found) n.strays.push_back(text(s));
  n.strays_more = st.more;
}

bool AttemptAgent::grace_cut() const {
  const int n = stop_signal_count();
  return n >= 2 || n > signals_at_stop_;
}

}  // namespace dd::launch
