// The launch report as rows, like the node and log rules (rules/rule.h, logs/log_rules.h): each way a job can
// stop (StopCause) is one row with its words for an attempt line, the findings that lead the report and the
// docs of their ids (failure_report_causes.cc); every other launch finding is one part with its builder and
// docs (failure_report_parts.cc). build_launch_report (failure_report.cc) puts them in report order.
#pragma once
#include <string>
#include <vector>

#include "launch/launch_facts.h"
#include "report/finding.h"
#include "report/finding_doc.h"

namespace dd::launch {

// The findings a row adds for the last attempt (none: nothing to say).
using LaunchPartFn = std::vector<report::Finding> (*)(const AttemptRecord& a);

// A finding the report adds when the attempt's records hold it (the ranks launch stopped, the env that
// differs, ...).
struct LaunchPart {
  const char* name;  // "rank_stopped"
  LaunchPartFn build;
  std::vector<report::FindingDoc> docs;  // every launch id build can emit
};

// One way the job stopped.
struct StopCauseRow {
  StopCause cause;
  std::string (*outcome)(const AttemptRecord& a);  // "rank 2 exited with status 7", for attempt lines
  LaunchPartFn build;                              // the findings that lead the report
  std::vector<report::FindingDoc> docs;            // of the ids build emits (a convention's are its own)
  // The parts that follow the cause's findings, in report order.
  const std::vector<const LaunchPart*>& (*then)();
};

// Every StopCause, one row each (failure_report_causes.cc); the row of one.
const std::vector<StopCauseRow>& stop_cause_rows();
const StopCauseRow& stop_cause_row(StopCause c);

// The parts after a job that ended well, and after one that failed, in report order; the ones that close
// the report (a node that sent no record, one line per earlier attempt); every part once, for the docs
// (failure_report_parts.cc).
const std::vector<const LaunchPart*>& parts_after_success();
const std::vector<const LaunchPart*>& parts_after_failure();
const LaunchPart& silent_nodes_part();
const LaunchPart& attempt_part();  // built for each earlier attempt
std::vector<const LaunchPart*> all_launch_parts();

}  // namespace dd::launch
