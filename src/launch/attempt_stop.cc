// AttemptStop (see attempt_stop.h).
#include "launch/attempt_stop.h"

#include <fmt/format.h>

#include "common/json_limits.h"
#include "common/safe_text.h"
#include "launch/stop_signals.h"

namespace dd::launch {

using namespace std::chrono_literals;

void AttemptStop::set(StopEvent ev, Clock::time_point at) {
  seen_ = at;
  event_ = std::move(ev);
  signals_at_stop_ = stop_signal_count();
}

void AttemptStop::raise(StopEvent ev) {
  if (event_) return;
  const JoinedNodes& j = s_.joined;
  const Clock::time_point now = Clock::now();
  ev.node_rank = ev.node_rank < 0 ? j.node_rank : ev.node_rank;
  ev.wall_ms = wall_ms_at(now);
  set(ev, now);
  if (ev.cause == StopCause::master_lost) return;  // nobody to tell
  const auto deadline = Clock::now() + 2s;
  auto n = j.store->add(attempt_keys(attempt_).at("stopn"), 1, deadline);
  if (n && *n == 1)
    (void)j.store->set(attempt_keys(attempt_).at("stop"), json_text(nlohmann::json(ev)), deadline);
}

void AttemptStop::store_failed(const Error& e, const char* during) {
  if (s_.joined.node_rank == 0 || event_) return;
  StopEvent ev;
  ev.cause = StopCause::master_lost;
  ev.detail = fmt::format("the store on node rank 0 stopped answering {}: {}", during, e.message());
  raise(ev);
}

void AttemptStop::poll() {
  if (event_) return;
  const JoinedNodes& j = s_.joined;
  auto key = attempt_keys(attempt_).at("stop");
  auto have = j.store->check({key}, Clock::now() + 3s);
  if (!have) return store_failed(have.error(), "while watching for a stop");
  if (!(*have)[0]) return;
  auto v = j.store->get(key, Clock::now() + 3s);
  if (!v) return store_failed(v.error(), "while reading the stop");
  StopEvent ev;
  std::string why;
  if (auto read = dd::parse_record<StopEvent>(*v, &why)) {
    ev = std::move(*read);
  } else {
    ev.cause = StopCause::master_lost;
    ev.detail = "unreadable stop event: " + why;
  }
  set(std::move(ev), Clock::now());
}

bool AttemptStop::grace_cut() const {
  const int n = stop_signal_count();
  return n >= 2 || n > signals_at_stop_;
}

}  // namespace dd::launch
