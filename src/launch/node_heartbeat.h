// This node's side of an attempt's heartbeats (hang_watch.h): twice a second a Beat (its live workers, the
// idle ones, how long all were silent) into the store, and its mark once every local worker succeeded. Node
// rank 0 keeps every node's beats on a board instead: a node silent for --lost-after, or a job that is idle
// and silent past --hang-timeout, raises the stop (attempt_stop.h).
#pragma once
#include <chrono>
#include <optional>

#include "launch/attempt_stop.h"
#include "launch/hang_watch.h"
#include "launch/worker_set.h"

namespace dd::launch {

class NodeHeartbeat {
 public:
  using Clock = std::chrono::steady_clock;
  NodeHeartbeat(const AttemptSetup& s, int attempt, AttemptStop& stop);
  void beat(WorkerSet& workers);  // samples each live worker's CPU time
  // Marks this node done once every local worker exited 0, then looks whether every node did.
  void poll_done(const WorkerSet& workers);
  bool all_done() const { return all_done_; }

 private:
  void lead_checks(const Beat& mine);

  const AttemptSetup& s_;
  int attempt_;
  AttemptStop& stop_;
  std::optional<BeatBoard> board_;  // node rank 0
  int64_t seq_ = 0;
  bool done_set_ = false, all_done_ = false;
};

}  // namespace dd::launch
