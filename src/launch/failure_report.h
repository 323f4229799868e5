// The launch report: findings from the attempts' records (launch_facts.h), the same on every node. Pure: the
// records carry everything (log tails, tracebacks, /proc snapshots, catalogue matches).
#pragma once
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

// The launcher's exit code: 0 when the last attempt succeeded; the root-cause worker's exit code, or
// 128+signal; 124 for a hang; 128+signal of an interrupt; report::kExitFail (2) for a lost node or master.
int launch_exit_code(const AttemptRecord& last);

// Long forms of the launch.* ids (for `distdoctor explain`).
const std::vector<report::FindingDoc>& launch_finding_docs();

}  // namespace dd::launch
