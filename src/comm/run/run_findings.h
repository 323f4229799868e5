// After a run: per-op results put together (time of the slowest rank, bandwidth, wrong elements) and every
// way the run went wrong named as one finding: a dead worker, a rank's error (with the ranks that never
// joined or stalled when it was a timeout), a run that did not finish, a worker that exited unclean.
#pragma once
#include <string>
#include <vector>

#include "comm/run/run_setup.h"
#include "comm/run/run_watch.h"
#include "comm/run/runner.h"

namespace dd::comm {

// Everything the findings are made from.
struct RunRecord {
  const RunOptions& opt;
  const RunLayout& layout;
  const RunWatch& watch;
  const process::WorkerSupervisor& sup;
  const std::vector<process::WorkerSpec>& specs;
  const probe::NodeFacts& facts;
  bool finished = false;            // every worker ended before the deadline
  std::vector<bool> alive_at_stop;  // per worker
  std::chrono::milliseconds total{0};
  rendezvous::Clock::time_point
      stopped_at{};        // when the watch ended (every worker ended, or it stopped them)
  std::string peers_gone;  // the cluster leader said these ranks of another node are gone ("" none)
  // The cgroup's OOM kills before the run (probe/oom_kills.h), -1 unknown: more after it names the OOM
  // killer.
  int64_t oom_kills_before = -1;
};

// Op `req` as every rank of this node reported it in `m`: time, bandwidth, wrong elements, status ok or
// wrong. One rank moves nothing between ranks: busbw 0 (as nccl-tests) and an in-place algbw of 0 (it copies
// nothing).
OpOutcome complete_op(const OpRequest& req, const std::map<int, RankResult>& m, int world);

// Fills out.ops from the results and adds comm.data.wrong findings; true when every op completed.
bool aggregate_ops(RunOutcome& out, const RunRecord& rec);

// Adds the findings that name what went wrong (none when the run was clean): one root cause, in this order:
// a worker that could not run (stopped, zombie, stuck in D), unless a death came first; a dead worker; the
// first rank's error; a run that ran out of time; workers that exited unclean.

void name_failures(RunOutcome& out, const RunRecord& rec);

// The finding of the worker that could not run (stuck_finding.cc): "rank 3 stopped (state T, SIGSTOP) —
// ranks 0-2 waited for it in all_reduce 8 GiB".
report::Finding stuck_worker_finding(const RunRecord& rec, const StuckWorker& st);

// "all_reduce 1 MiB float (ranks 0<->2) in-place".
std::string op_label(const OpRequest& r);

}  // namespace dd::comm
