// Scans one log input (file, .gz or stdin) in a single streaming pass: NCCL facts per process, catalogue
// matches with line numbers, framework failures, and a per-file summary. Bounded memory whatever the size.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "logs/catalogue.h"
#include "logs/fr/flight_recorder.h"
#include "logs/line_reader.h"
#include "logs/log_facts.h"
#include "logs/run_budget.h"

namespace dd::logs {

// The first line of `distdoctor launch`'s stack files (stacks/nodeN.rankR.txt, written by its hook, read by
// launch/debug_hooks.cc): such a file holds faulthandler's dumps of a rank, not its output, and is not
// scanned.
inline constexpr std::string_view kStackHookMarker = "# distdoctor: stack hook pid ";

struct Hit {
  std::string file;
  uint64_t line = 0;
  int rank = -1;
  std::string who;      // process label or "[rankN]"
  std::string excerpt;  // the line (capped)
  int64_t time = -1;    // log_time_key of the line (or the last timestamp before it in its file)
  std::vector<std::string> captures;
};

struct EntryHits {
  uint64_t count = 0;
  std::vector<Hit> samples;  // the first few
};

struct ScanOptions {
  ReadOptions read;
  std::string iteration_pattern;  // a literal; each line holding it starts a new iteration
  size_t max_samples = 4;         // evidence lines kept per catalogue entry and file
  RunBudget* budget = nullptr;    // shared by the files of one run (analyze_logs makes it); null: per file
};

struct FileResult {
  FileFacts file;
  std::vector<ProcessFacts> processes;
  std::map<size_t, EntryHits> hits;  // catalogue index -> matches
  EntryHits unmatched_warns;         // NCCL WARN lines no catalogue entry explains
  std::vector<WatchdogTimeout> watchdogs;
  std::vector<ChildFailure> child_failures;
  std::vector<RankProgress> ranks;  // progress per rank (progress_scan.h)
  std::vector<ExitEvent> exits;     // exits launchers reported
  // A Flight Recorder dump instead of a log (scan_file detects them by content): the record, or why not.
  std::vector<FlightRecord> flight_records;
  std::vector<std::string> flight_record_errors;
};

// A file whose first bytes look like a Flight Recorder dump (a pickle, or JSON naming pg_config) is read as
// one instead of as text.
FileResult scan_file(const std::string& path, const Catalogue& cat, const ScanOptions& opt);
FileResult scan_buffer(const std::string& name, std::string_view text, const Catalogue& cat,
                       const ScanOptions& opt);

}  // namespace dd::logs
