// One finding per failure: in findings ordered root cause first (finding_order.h), the findings that report
// the root's failure again from another side are folded into it (report::fold_into) instead of standing as
// more FAILs: the rank that stopped first behind the error it stopped on, the Flight Recorder's view of a
// hang the logs already named, launch's diagnosis of the failed rank read once more from its log, one error
// matched twice. And torchrun's "root cause" (the first rank to exit) is said as such when it is not the
// root's rank. Used by `logs` (logs_findings) and for a launch run folder (launch's findings then the logs').
#pragma once
#include <string_view>
#include <vector>

#include "logs/catalogue.h"
#include "report/finding.h"

namespace dd::logs {

// launch's finding for a rank that failed (launch/failure_report_ids.h's kRankFailed, named here because
// logs/ may not include launch/): its fix names the catalogue entry it diagnosed as "(ID; ...", so a finding
// of that entry on the same rank restates it and is folded into it.
inline constexpr std::string_view kDiagnosedRankFailureId = "launch.rank.failed";

// Whether `specific` (a fail from the catalogue, not a consequence kind) may be the error that the rank of
// `stop` (a logs.rank.stopped_first) stopped on: its rank is that one or unknown.
bool may_be_error_of(const report::Finding& specific, const report::Finding& stop, const Catalogue& cat);

// Folds restatements of the first fail finding into it; the order is kept (a folded finding stays where it
// was, at info).
void fold_same_failure(std::vector<report::Finding>& v, const Catalogue& cat);

}  // namespace dd::logs
