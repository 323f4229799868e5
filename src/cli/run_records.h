// `distdoctor logs` on a launch run folder: the attempt records launch saved there (launch/attempt_file.h),
// taken out of the inputs, so the report leads with the findings launch gave (one analysis of one run) and
// the log reading adds to them.
#pragma once
#include <string>
#include <vector>

#include "launch/launch_facts.h"
#include "report/finding.h"

namespace dd::cli {

struct RunRecords {
  std::vector<launch::AttemptRecord> attempts;  // by attempt number, each once
  std::vector<std::string> errors;              // "PATH: why" for an attempt.json that is not a record
  std::vector<std::string> other_paths;         // every other input, as files ("-" kept)
  // A folder of several launch jobs (DIR/JOB/ATTEMPT/attempt.json, launch's --log-dir): only the newest job
  // is read, its folder here, and how many jobs the inputs held; else empty and 1 or 0.
  std::string job_dir;
  size_t jobs = 0;
};

// Expands the inputs (logs::expand_inputs) and takes out the files named attempt.json that hold a launch
// attempt record. Records of several jobs (a --log-dir that holds every run): the newest job's (the latest
// attempt.json written) are kept, and of the other inputs only the files in its folder, as launch's one run.
// Inputs that expand to nothing are passed on unchanged (the engine reports them).
RunRecords take_attempt_records(const std::vector<std::string>& paths);

// launch's findings first, then the log reading's, less those that repeat one of launch's from the same
// evidence (logs.fr.straggler for the rank launch.job.straggler names: one analysis of the same dumps).
std::vector<report::Finding> run_findings(std::vector<report::Finding> launched,
                                          const std::vector<report::Finding>& read);

}  // namespace dd::cli
