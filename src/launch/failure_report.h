// The launch report: findings from the attempts' records (launch_facts.h), the same on every node. Pure: the
// records carry everything (log tails, tracebacks, /proc snapshots, catalogue matches).
#pragma once
#include <optional>
#include <vector>

#include "launch/launch_facts.h"
#include "report/finding_doc.h"
#include "report/report.h"

namespace dd::launch {

// Findings of one job: for the last attempt the cause (launch.rank.failed with command, log path, last lines,
// traceback; the catalogue's diagnosis; launch.rank.also_failed for ranks that died on their own after the
// root cause; launch.rank.stopped for the ones launch stopped; launch.env.differs; launch.hang with each
// rank's state, wchan, CPU, last line, ahead/behind by collective count and stacks; launch.node.lost;
// launch.master.lost; launch.interrupted), or launch.job.ok; one launch.attempt.failed line per earlier
// attempt.
report::Report build_launch_report(const std::vector<AttemptRecord>& attempts);

// The launcher's own exit codes beyond report.h's 0-3 (README, "Exit codes"): never a worker's status, which
// goes in the report and the JSON ("worker_exit_code") instead.
inline constexpr int kExitJobFailed =
    4;  // a worker (or a convention's companion process) failed: exited non-zero, killed
inline constexpr int kExitHang = 124;  // the job hung (as timeout(1))

// The launcher's exit code: 0 when the last attempt succeeded; kExitJobFailed when a worker failed; 124 for a
// hang; 128+signal of an interrupt (the launcher's own signal); report::kExitFail (2) for a lost node or
// master; 3 when the attempt could not start.
int launch_exit_code(const AttemptRecord& last);

// The status of the worker whose failure ended the job (its exit code, 128+signal when killed), 0 when every
// worker exited 0; nullopt when the job ended otherwise (a hang, an interrupt, a lost node).
std::optional<int> worker_exit_code(const AttemptRecord& last);

// Long forms of the launch.* ids (for `distdoctor explain`).
const std::vector<report::FindingDoc>& launch_finding_docs();

}  // namespace dd::launch
