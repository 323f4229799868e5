// The node agent of one attempt (internal to attempt*.cc): it sequences the attempt (start, watch, stop on
// the first failure anywhere, gather the records) and leaves each job to a part of its own: the local workers
// (worker_set.h, one LocalWorker record each), their start (attempt_start.h), the stop (attempt_stop.h), the
// heartbeats (node_heartbeat.h), the hang evidence (hang_evidence.h), the signals (signal_relay.h), a
// convention's companion process (companion_runner.h: MindSpore's scheduler), the identity watch
// (identity_watch.h) and the straggler watch (straggler_watch.h).
#pragma once
#include "launch/attempt.h"
#include "launch/attempt_stop.h"
#include "launch/companion_runner.h"
#include "launch/hang_evidence.h"
#include "launch/identity_watch.h"
#include "launch/node_heartbeat.h"
#include "launch/signal_relay.h"
#include "launch/straggler_watch.h"
#include "launch/worker_set.h"

namespace dd::launch {

class AttemptAgent {
 public:
  using Clock = std::chrono::steady_clock;
  AttemptAgent(const AttemptSetup& s, int attempt)
      : s_(s),
        attempt_(attempt),
        workers_(s),
        companion_(s, attempt),
        identities_(s),
        stragglers_(s, attempt),
        evidence_(s, workers_),
        stop_(s, attempt),
        heartbeat_(s, attempt, stop_) {}
  AttemptRecord run();

 private:
  const JoinedNodes& joined() const { return s_.joined; }
  void watch_loop();
  void watch_turn();  // the workers' exits, output and /proc states, the companion, the signals
  // The live status line (status_text.h), redrawn at most once a second; erased before anything else is
  // written to the terminal (worker lines, warnings) and when the watch ends.
  void show_status(Clock::time_point now);
  void erase_status() {
    if (s_.status) s_.status->erase();
  }
  // A worker whose process is ending with a failure before waitpid can reap it: a killed CUDA process stays
  // so for seconds while its threads exit. The stop is raised then, not after the teardown (nor, as before,
  // after --hang-timeout as a hang).
  void check_ending();
  void check_triggers();
  void raise_worker_failed(size_t i);
  void poll_companion();  // a companion that failed before the workers finished stops the job
  void stop_workers();
  NodeRecord node_record();

  const AttemptSetup& s_;
  int attempt_;
  WorkerSet workers_;
  CompanionRunner companion_;  // MindSpore's scheduler, or none
  IdentityWatch identities_;   // each worker's environment and NCCL library, while it starts
  StragglerWatch stragglers_;  // live Flight Recorder snapshots: a rank the others wait for
  HangEvidence evidence_;      // trigger lines, stacks and Flight Recorder dumps
  AttemptStop stop_;
  NodeHeartbeat heartbeat_;
  SignalRelay signals_;
  double stop_latency_s_ = -1;
};

// Publishes this node's record and reads every other node's (node rank 0 serves the store: it stays until
// every node has read them, briefly).
void gather_records(const AttemptSetup& s, int attempt, NodeRecord mine, AttemptRecord& rec);

}  // namespace dd::launch
