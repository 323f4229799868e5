// Findings from the Flight Recorder analysis (logs.fr.* ids, documented in fr_finding_docs.cc): the cause
// (desync by op, size or dtype, process-group desync, a rank behind, a matched hang), the dumps that are
// missing or unreadable, or a clean record. fr_findings works on any analysis (from `logs` inputs or from
// the node summaries `launch` merges); fr_log_rule (log_rules.h) is the row `logs` runs over its dump inputs.
#pragma once
#include <vector>

#include "logs/analyze.h"
#include "logs/fr/fr_analysis.h"
#include "report/finding.h"

namespace dd::logs {

std::vector<report::Finding> fr_findings(const FrAnalysis& a);

// A straggler as a finding with the given id (logs.fr.straggler; launch.job.straggler for launch).
report::Finding straggler_finding(const FrStraggler& g, const std::string& id);
// Its fix: what to look at on that rank (also for launch's finding from what its live check saw).
std::string straggler_fix(int rank, bool on_gpu = false);

// Long forms of the logs.fr.* ids: the docs of the Flight Recorder's row of the log rule table
// (fr_log_rule, log_rules.h), which runs fr_findings over the dumps among the inputs.
const std::vector<report::FindingDoc>& fr_finding_docs();

}  // namespace dd::logs
