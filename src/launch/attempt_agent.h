// The node agent of one attempt (internal to attempt*.cc and hang_evidence.cc): the attempt's decisions
// (start, watch, stop on the first failure anywhere, gather the records). Each local worker is one
// LocalWorker record (local_worker.h); what watches the workers on its own is a class of its own: a
// convention's companion process (companion_runner.h: MindSpore's scheduler), the identity watch
// (identity_watch.h) and the straggler watch (straggler_watch.h).
#pragma once
#include <map>
#include <memory>
#include <optional>

#include "launch/attempt.h"
#include "launch/companion_runner.h"
#include "launch/debug_hooks.h"
#include "launch/hang_watch.h"
#include "launch/identity_watch.h"
#include "launch/local_worker.h"
#include "launch/stop_signals.h"
#include "launch/straggler_watch.h"
#include "probe/process_identity.h"
#include "process/output_tail.h"
#include "process/worker_supervisor.h"

namespace dd::launch {

class AttemptAgent {
 public:
  using Clock = std::chrono::steady_clock;
  AttemptAgent(const AttemptSetup& s, int attempt)
      : s_(s), attempt_(attempt), companion_(s, attempt), identities_(s), stragglers_(s, attempt) {}
  AttemptRecord run();

 private:
  const JoinedNodes& joined() const { return s_.joined; }
  // attempt_start.cc: the layout, every log file, the debug hooks, each worker's record and spec, the start
  // lines, then the companion and the workers.
  bool start_workers();
  WorkerEnvOptions env_options() const;
  Status prepare_logs(const WorkerEnvOptions& eo);
  process::WorkerSpec worker_spec(int local_rank, const WorkerEnvOptions& eo);
  bool start_companion(const WorkerEnvOptions& eo);  // false when it cannot be started (a stop is raised)
  void raise_start_failed(const Error& e);
  // The process of worker i (pid, exit status) as the supervisor keeps it.
  const process::WorkerState& proc(size_t i) const { return sup_.workers()[i]; }
  void watch_loop();
  // The live status line (status_text.h), redrawn at most once a second; erased before anything else is
  // written to the terminal (worker lines, warnings) and when the watch ends.
  void show_status(Clock::time_point now);
  void erase_status() {
    if (s_.status) s_.status->erase();
  }
  void on_worker_exit(int i);
  // A worker whose process is ending with a failure (a signal, a non-zero status) before waitpid can reap it:
  // a killed CUDA process stays so for seconds while its threads exit. /proc shows it (probe::read_proc); the
  // stop is raised then, not after the teardown (nor, as before, after --hang-timeout as a hang).
  void check_ending();
  void raise_worker_failed(size_t i);
  void raise_stop(StopEvent ev);  // publishes it (first one wins) and ends the loop
  void poll_stop_key();
  void poll_companion();  // a companion that failed before the workers finished stops the job
  void heartbeat();
  void lead_checks(const Beat& mine);
  void poll_done();
  void note_store_error(const Error& e, const char* during);
  void stop_workers();
  // attempt_signals.cc: a scheduler's SIGUSR1/SIGUSR2/SIGALRM to the launcher, passed on to every worker's
  // process group (and the companion's) while they run, noted for the report either way; why_not (not null)
  // keeps them from the workers and says why.
  void forward_signals(const char* why_not = nullptr);
  // A stop signal (SIGINT, SIGTERM, SIGHUP) that came while the stop is under way (a second Ctrl-C, or a
  // first one during a hang's stop): the grace period ends at once, for the workers, the companion and the
  // strays.
  bool grace_cut() const;
  void note_stop_signals() { signals_at_stop_ = stop_signal_count(); }  // when stop_ is set
  void stop_strays(NodeRecord& n);  // what the workers left outside their groups (launch.job.strays)
  // hang_evidence.cc: the first watchdog/NCCL-error line any worker printed starts a hang stop; before the
  // stop, every live worker is asked for its Python stacks and a Flight Recorder dump, and given a moment.
  void check_triggers();  // also keeps each worker's last_output: the silence --hang-timeout measures
  // Worker i printed a trigger line (a watchdog timeout, NCCL's error about a peer) among its last lines: its
  // own end follows a failure it saw, so it is a witness, not the cause.
  bool printed_trigger(size_t i) const;
  // At most `wait` (and never past --grace, nor after a second stop signal) for the stacks and dumps.
  void gather_hang_evidence(std::chrono::milliseconds wait);
  static constexpr std::chrono::milliseconds kHangEvidenceWait{3000};
  static constexpr std::chrono::milliseconds kInterruptEvidenceWait{1500};
  void request_fr_dumps();  // a byte into each live local worker's request FIFO (the hook's)
  // The byte itself ('1': a dump for the hang; '2': a snapshot into the dump's path + ".live") into each live
  // worker's FIFO; per worker, `flag` says whether a hook read it (a dump will come). How many did.
  int poke_fr_hooks(char what, bool LocalWorker::*flag);
  double fresh_dump_after() const;  // epoch seconds: older dump files do not show this hang
  void read_flight_records(NodeRecord& n);
  RankRecord rank_record(size_t i);
  // quick (an interrupt): no read of the whole log for its collectives, and no py-spy.
  RankRecord hang_snapshot(size_t i, Clock::time_point now, bool quick = false);
  NodeRecord node_record();
  void gather(AttemptRecord& rec);
  int64_t wall_ms(Clock::time_point t) const { return wall_ms_at(t); }

  const AttemptSetup& s_;
  int attempt_;
  JobLayout layout_;
  process::WorkerSupervisor sup_;
  std::unique_ptr<process::OutputTail> tail_;
  std::vector<LocalWorker> workers_;  // by local rank, as sup_.workers() and tail_'s sources
  CompanionRunner companion_;         // MindSpore's scheduler, or none
  IdentityWatch identities_;          // each worker's environment and NCCL library, while it starts
  StragglerWatch stragglers_;         // live Flight Recorder snapshots: a rank the others wait for
  DebugHookPaths hooks_;
  DebugHookOptions hook_opt_;
  std::map<size_t, RankRecord> snapshots_;  // hang evidence taken before the stop
  std::optional<StopEvent> stop_;
  std::optional<BeatBoard> board_;
  Clock::time_point t0_ = Clock::now();
  Clock::time_point stop_seen_{};
  int64_t beat_seq_ = 0;
  bool done_set_ = false, all_done_ = false, started_ = false;
  bool fr_requested_ = false;   // dumps asked for (once, when the hang is declared)
  double fr_requested_at_ = 0;  // epoch seconds of that request
  double stop_latency_s_ = -1;
  int signals_at_stop_ = 0;                // stop signals received when the stop began
  std::vector<std::string> signal_notes_;  // forward_signals: what came and where it went
  size_t signal_notes_more_ = 0;           // beyond the notes kept
};

}  // namespace dd::launch
