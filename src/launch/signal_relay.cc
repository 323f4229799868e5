// SignalRelay and stop_strays (see signal_relay.h).
#include "launch/signal_relay.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "common/signal_name.h"
#include "launch/stop_signals.h"
#include "probe/stray_children.h"

namespace dd::launch {

namespace {

std::string clock_text(int64_t wall_ms) {
  const std::time_t secs = std::time_t(wall_ms / 1000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char when[16];
  std::strftime(when, sizeof when, "%H:%M:%S", &tm);
  return fmt::format("{}.{:03}", when, wall_ms % 1000);
}

}  // namespace

void SignalRelay::forward(WorkerSet& workers, CompanionRunner& companion, const char* why_not) {
  for (int sig : take_forward_signals()) {
    int groups = 0;
    if (!why_not) {
      groups = workers.forward(sig);
      groups += companion.forward(sig);
    }
    const std::string where =
        groups > 0 ? fmt::format("passed on to {} worker process group{}", groups, groups == 1 ? "" : "s")
                   : fmt::format("not passed on: {}", why_not ? why_not : "no worker process was left");
    if (notes_.size() < kKept)
      notes_.push_back(fmt::format("{} at {}: {}", signal_name(sig),
                                   clock_text(wall_ms_at(std::chrono::steady_clock::now())), where));
    else
      ++more_;
  }
}

std::vector<std::string> SignalRelay::notes() const {
  std::vector<std::string> out = notes_;
  if (more_ > 0) out.push_back(fmt::format("and {} more", more_));
  return out;
}

void stop_strays(const AttemptSetup& s, const std::vector<pid_t>& groups, const AttemptStop& stop,
                 NodeRecord& n) {
  std::vector<pid_t> own;
  if (s.guard) own.push_back(s.guard->pid());
  const auto grace = std::chrono::milliseconds(int64_t(std::min(s.joined.job.grace_s, 2.0) * 1000));
  auto cut = [&stop] { return stop.grace_cut(); };
  const process::StraysStopped st = process::stop_strays([&] { return probe::find_strays(own, groups); },
                                                         cut() ? grace.zero() : grace, cut);
  auto text = [&](const process::Stray& p) {
    const bool left = std::any_of(st.left.begin(), st.left.end(), [&](auto& l) { return l.pid == p.pid; });
    return fmt::format(
        "pid {}: {}{}", p.pid, p.command,
        left ? fmt::format(" (still running after {} scans: it could not be stopped)", st.scans) : "");
  };
  for (const auto& p : st.found) n.strays.push_back(text(p));
  n.strays_more = st.more;
}

}  // namespace dd::launch
