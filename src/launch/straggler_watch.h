// The live straggler check (issue 39) of one attempt: every straggler_interval_s, a "2" into each live
// worker's Flight Recorder FIFO (launch's hook dumps the recorder without stacks, in milliseconds, into its
// asked-for file + ".live", which is read and removed: a snapshot mid-run read later by `logs` would look
// like a hang); once every asked worker has written (or kSnapshotWait passed), this node's dumps are
// summarized and compared (logs/fr/fr_straggler.h: on this node's clock, so no offset between nodes enters)
// and a rank the others wait for is said through the progress sink at each snapshot (its figures move), and
// kept for the report. The snapshot is what the recorder holds then: the last collectives before it, so a
// slowdown shows within one interval.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "launch/attempt.h"
#include "launch/local_worker.h"
#include "logs/fr/fr_straggler.h"

namespace dd::launch {

class StragglerWatch {
 public:
  using Clock = std::chrono::steady_clock;
  // Writes `what` into each live worker's request FIFO; per worker, `flag` says whether a hook read it. How
  // many did.
  using Poke = std::function<int(char what, bool LocalWorker::*flag)>;
  StragglerWatch(const AttemptSetup& s, int attempt) : s_(s), attempt_(attempt) {}
  // One turn of the node agent's loop, while no stop is raised: asks for a snapshot when one is due, reads
  // the snapshots once they are written.
  void tick(std::vector<LocalWorker>& workers, const Poke& poke);
  // The stragglers said during the attempt, for the node's record.
  const std::vector<StragglerSeen>& seen() const { return seen_; }

 private:
  void read_snapshots(std::vector<LocalWorker>& workers);
  void say_stragglers(const std::vector<logs::FrStraggler>& found);

  const AttemptSetup& s_;
  int attempt_;
  Clock::time_point next_snapshot_{};   // the next live straggler snapshot
  Clock::time_point snapshot_asked_{};  // when the pending one was asked for (steady clock)
  double snapshot_asked_at_ = 0;        // the same in epoch seconds, for the dump files' times
  bool snapshot_pending_ = false;       // a snapshot was asked for and is still to be read
  std::string said_;                    // the last stragglers said (the same is not said again)
  std::vector<StragglerSeen> seen_;
  bool metrics_warned_ = false;  // --metrics could not be written: said once
};

}  // namespace dd::launch
