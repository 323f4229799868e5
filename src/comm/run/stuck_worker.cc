// StuckWatch (stuck_worker.h): per-worker state runs from /proc samples, and the wording of a stuck state.
#include "comm/run/stuck_worker.h"

#include "common/signal_name.h"

namespace dd::comm {

using rendezvous::Clock;

void StuckWatch::sample(int w, pid_t pid, const probe::ProcSnapshot& s, Clock::time_point now) {
  if (!s.ok || !(cannot_run(s.state) || s.state == 'D')) {
    cur_.erase(w);
    return;
  }
  auto it = cur_.find(w);
  if (it != cur_.end() && it->second.state == s.state && it->second.pid == pid) {
    if (s.stop_signal) it->second.stop_signal = s.stop_signal;
    if (!s.wchan.empty()) it->second.wchan = s.wchan;
    return;
  }
  cur_[w] = StuckWorker{w, pid, s.state, s.state_name, s.stop_signal, s.wchan, now};
}

namespace {

bool past_bound(const StuckWorker& s, Clock::time_point now, Clock::time_point last_progress, bool any_stop) {
  // At the end, a stop counts however brief; a zombie never does (a worker that just exited is one until
  // reaped).
  if (s.state == 'T' || s.state == 't') return any_stop || now - s.since >= StuckWatch::kStoppedFor;
  if (s.state == 'Z') return now - s.since >= StuckWatch::kStoppedFor;
  return now - s.since >= StuckWatch::kBlockedFor && last_progress <= s.since;
}

std::optional<StuckWorker> longest(const std::map<int, StuckWorker>& cur, Clock::time_point now,
                                   Clock::time_point last_progress, bool any_stop) {
  std::optional<StuckWorker> out;
  for (const auto& [w, s] : cur)
    if (past_bound(s, now, last_progress, any_stop) && (!out || s.since < out->since)) out = s;
  return out;
}

}  // namespace

std::optional<StuckWorker> StuckWatch::stuck(Clock::time_point now, Clock::time_point last_progress) const {
  return longest(cur_, now, last_progress, false);
}

std::optional<StuckWorker> StuckWatch::at_end(Clock::time_point now, Clock::time_point last_progress) const {
  return longest(cur_, now, last_progress, true);
}

std::string stuck_text(const StuckWorker& s) {
  const std::string state(1, s.state);
  if (s.state == 'T' || s.state == 't') {
    std::string why = s.stop_signal > 0 ? ", " + signal_name(s.stop_signal) : "";
    return (s.state == 't' ? "held by a debugger (state t" : "stopped (state T") + why + ")";
  }
  if (s.state == 'Z') return "a zombie (state Z: its main thread exited, others did not)";
  return "stuck in the kernel (state D" + (s.wchan.empty() ? std::string() : ", in " + s.wchan) + ")";
}

}  // namespace dd::comm
