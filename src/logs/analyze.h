// `distdoctor logs` engine: expand inputs (files, directories, "-"), scan them in parallel, merge what each
// process printed across files, and turn it into a report (catalogue matches + cross-rank rules).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "logs/catalogue.h"
#include "logs/file_scan.h"
#include "logs/fr/flight_recorder.h"
#include "report/finding_doc.h"
#include "report/report.h"

namespace dd::logs {

struct LogsOptions {
  std::vector<std::string> paths;
  ScanOptions scan;
  int jobs = 0;  // worker threads; 0 = one per core
};

struct LogsResult {
  std::vector<FileFacts> files;
  std::vector<std::string> input_errors;           // "path: reason" for inputs that are not there at all
  std::vector<ProcessFacts> processes;             // merged by host:pid across files
  std::vector<std::pair<size_t, EntryHits>> hits;  // per catalogue entry, in catalogue order
  EntryHits unmatched_warns;
  std::vector<WatchdogTimeout> watchdogs;
  std::vector<ChildFailure> child_failures;
  std::vector<RankProgress> ranks;  // one per rank (merged across files; rank -1: a file of unknown rank)
  std::vector<ExitEvent> exits;     // exits launchers reported, ranks resolved where a pid or rank says
  // Flight Recorder dumps among the inputs (detected by content, fr_rules.h reasons over them).
  std::vector<FlightRecord> flight_records;
  std::vector<std::string> flight_record_errors;  // "path: why" for dumps that could not be read
};

// Lists the files an input names: itself, every regular file under a directory (sorted), or "-".
std::vector<std::string> expand_inputs(const std::vector<std::string>& paths,
                                       std::vector<std::string>& errors);

LogsResult analyze_logs(const LogsOptions& opt, const Catalogue& cat);

// Merges per-file results (exposed for tests).
LogsResult merge_results(std::vector<FileResult> files, const Catalogue& cat);

// Findings: input problems, catalogue matches, unexplained NCCL WARNs, and the cross-rank rules.
std::vector<report::Finding> logs_findings(const LogsResult& r, const Catalogue& cat);

// Cross-rank rules over the merged facts (log_rules.h lists them; log_rules.cc runs them).
std::vector<report::Finding> cross_rank_findings(const LogsResult& r);

// Long forms of the logs.* ids the rules above emit (for `explain`; gathered from the rows in log_rules.cc):
// id, title, explanation.
const std::vector<report::FindingDoc>& logs_finding_docs();

// Facts as JSON (files, processes, collectives, framework failures) for --json.
nlohmann::json logs_facts_json(const LogsResult& r);

// Matches a pasted text (one or many lines) against the catalogue: what `explain "TEXT"`, `launch` and
// `check` use to explain an error message. One finding per matching entry, the first cause first (most
// severe, then earliest line).
std::vector<report::Finding> match_text(std::string_view text, const Catalogue& cat);

}  // namespace dd::logs
