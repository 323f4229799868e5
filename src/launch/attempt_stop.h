// The stop of one attempt: the first event anywhere that ends it (a failed worker, a hang, a lost node, an
// interrupt). Raised here, it is published in the store (the first one job-wide wins); raised elsewhere, it
// is read from the store. A stop signal that comes while the stop is under way (a second Ctrl-C) cuts its
// grace.
#pragma once
#include <chrono>
#include <optional>

#include "launch/attempt.h"

namespace dd::launch {

class AttemptStop {
 public:
  using Clock = std::chrono::steady_clock;
  AttemptStop(const AttemptSetup& s, int attempt) : s_(s), attempt_(attempt) {}
  explicit operator bool() const { return event_.has_value(); }
  const StopEvent* operator->() const { return &*event_; }
  const std::optional<StopEvent>& event() const { return event_; }
  Clock::time_point seen() const { return seen_; }  // when this node saw it
  // Publishes it (first one wins); the node's own stop when none was seen yet.
  void raise(StopEvent ev);
  // The store on node rank 0 stopped answering (on another node): the master is lost.
  void store_failed(const Error& e, const char* during);
  void poll();  // a stop another node published
  // A stop signal (SIGINT, SIGTERM, SIGHUP) since the stop began, or a second one: the grace ends at once,
  // for the workers, the companion and the strays.
  bool grace_cut() const;

 private:
  void set(StopEvent ev, Clock::time_point at);

  const AttemptSetup& s_;
  int attempt_;
  std::optional<StopEvent> event_;
  Clock::time_point seen_{};
  int signals_at_stop_ = 0;  // stop signals received when the stop began
};

}  // namespace dd::launch
