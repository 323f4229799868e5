// Findings from the Flight Recorder analysis (logs.fr.* ids, documented in fr_finding_docs.cc): the cause
// (desync by op, size or dtype, process-group desync, a rank behind, a matched hang), the dumps that are
// missing or unreadable, or a clean record. fr_findings works on any analysis (from `logs` inputs or from
// the node summaries `launch` merges); fr_rules is the cross-rank rule `logs` runs over its dump inputs.
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

// Over r.flight_records and r.flight_record_errors; appends nothing when neither holds anything.
void fr_rules(const LogsResult& r, std::vector<report::Finding>& out);

// Long forms of the logs.fr.* ids (appended to logs_finding_docs()).
const std::vector<report::FindingDoc>& fr_finding_docs();

}  // namespace dd::logs
