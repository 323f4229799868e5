// The hang evidence of one attempt's local workers: the first trigger line a worker prints (a watchdog
// timeout, NCCL's error about a peer) starts a hang stop; before the stop, every live worker is asked for its
// Python stacks (SIGUSR2 to launch's stack hook) and a Flight Recorder dump (a byte into the hook's FIFO) and
// given a moment; each live worker's state is then kept (/proc, stacks, py-spy); at the end, the dumps that
// show this attempt's end are read and summarized for the node's record.
#pragma once
#include <chrono>
#include <map>
#include <optional>

#include "launch/attempt_stop.h"
#include "launch/worker_set.h"

namespace dd::launch {

class HangEvidence {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kHangWait{3000};
  static constexpr std::chrono::milliseconds kInterruptWait{1500};
  HangEvidence(const AttemptSetup& s, WorkerSet& workers) : s_(s), w_(workers) {}
  // A hang stop when a worker printed a trigger line since the last look; keeps each worker's last_output
  // (the silence --hang-timeout measures) either way.
  std::optional<StopEvent> check_triggers();
  // Worker i printed a trigger line among its last lines: its own end follows a failure it saw, so it is a
  // witness, not the cause.
  bool printed_trigger(size_t i) const;
  // Asks for the stacks and dumps and waits at most `wait` (never past --grace, nor after a second stop
  // signal) for them.
  void gather(std::chrono::milliseconds wait, const AttemptStop& stop);
  // The byte itself ('1': a dump for the hang; '2': a snapshot into the dump's path + ".live") into each live
  // worker's FIFO; per worker, `flag` says whether a hook read it (a dump will come). How many did.
  int poke(char what, bool LocalWorker::*flag);
  // Each live worker's state at `now` (when the stop began); quick (an interrupt): no read of the whole log
  // for its collectives, and no py-spy.
  void take_snapshots(Clock::time_point now, bool quick);
  const std::map<size_t, RankRecord>& snapshots() const { return snapshots_; }
  // Per rank the dump that shows this attempt's end, summarized into n.flight_recorder.
  void read_flight_records(NodeRecord& n, const AttemptStop& stop);

 private:
  void request_fr_dumps();  // '1' into each live worker's FIFO, once
  RankRecord snapshot(size_t i, Clock::time_point now, bool quick);

  const AttemptSetup& s_;
  WorkerSet& w_;
  std::map<size_t, RankRecord> snapshots_;  // by local rank, taken before the stop
  bool fr_requested_ = false;               // dumps asked for (once, when the hang is declared)
  double fr_requested_at_ = 0;              // epoch seconds of that request
};

}  // namespace dd::launch
