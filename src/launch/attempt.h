// One attempt of a launch on this node: agree on the layout (ports, MASTER_PORT), start the local workers
// with their env and log files, watch them (exits, output, heartbeats, the stop key, signals, hangs), stop
// them on the first failure anywhere, and gather every node's record of what happened.
#pragma once
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "common/progress_sink.h"
#include "launch/launch_args.h"
#include "launch/launch_facts.h"
#include "launch/launch_join.h"
#include "launch/status_line.h"
#include "launch/worker_env.h"
#include "probe/facts.h"
#include "process/orphan_guard.h"

namespace dd::launch {

// What every attempt of this launch shares.
struct AttemptSetup {
  const LaunchArgs& args;
  const JoinedNodes& joined;
  const probe::NodeFacts& facts;
  const std::vector<std::string>& base_env;  // the launcher's environment ("NAME=value")
  std::string run_dir;                       // this run's log folder, LOG_DIR/JOB[.N] (run_dir.h)
  std::string program;                       // command[0] resolved on PATH
  std::string path_env;                      // PATH (py-spy lookup)
  process::OrphanGuard* guard = nullptr;
  int out_fd = 1;                // where worker lines are echoed (cli's choice: 2 with --json)
  double lost_after_s = 5;       // a node without a heartbeat for this long is lost
  StatusLine* status = nullptr;  // the live status line (status_text.h) on cli's stream; null: none
  ProgressSink progress;         // what the attempt says (start lines, warnings, stragglers): cli prints it
};

AttemptRecord run_attempt(const AttemptSetup& setup, int attempt);

// A steady-clock moment on the wall clock, in ms since the epoch.
int64_t wall_ms_at(std::chrono::steady_clock::time_point t);

// Layout of one attempt: this node publishes its ports (node rank 0 also MASTER_PORT) and reads the others'.
// An Error when a node does not answer (the caller turns it into a lost node or master).
Result<JobLayout> agree_layout(const AttemptSetup& setup, int attempt);

// The log file of a worker: {run_dir}/{attempt}/node{N}.rank{R}.log
std::string worker_log_path(const std::string& run_dir, int attempt, int node_rank, int rank);
// A convention's companion process's (MindSpore's scheduler, node rank 0), beside them:
// {run_dir}/{attempt}/node{N}.{role}.log
std::string companion_log_path(const std::string& run_dir, int attempt, int node_rank, std::string_view role);

// The root cause across every node's records: the failed worker that ended first (wall clock), which may be
// an earlier one than the node that published the stop saw. Rewrites stop.root / stop.rank.
void settle_root_cause(AttemptRecord& rec);

}  // namespace dd::launch
