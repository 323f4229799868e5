// take_attempt_records and run_findings (see run_records.h).
#include "cli/run_records.h"

#include <algorithm>

#include "launch/attempt_file.h"
#include "launch/failure_report_ids.h"
#include "logs/analyze.h"
#include "logs/finding_fold.h"
#include "logs/log_finding_ids.h"
#include "probe/regular_file.h"

namespace dd::cli {

namespace {

// DIR/JOB for DIR/JOB/ATTEMPT/attempt.json (what launch writes); the record's own folder when shallower.
std::string job_folder(const std::string& attempt_file) {
  std::string dir =
      attempt_file.substr(0, attempt_file.rfind('/') == std::string::npos ? 0 : attempt_file.rfind('/'));
  const size_t up = dir.rfind('/');
  return up == std::string::npos ? dir : dir.substr(0, up);
}

struct Found {
  std::string job;
  double mtime;
  launch::AttemptRecord rec;
};

}  // namespace

RunRecords take_attempt_records(const std::vector<std::string>& paths) {
  RunRecords out;
  std::vector<Found> found;
  std::vector<std::string> errors;
  const std::vector<std::string> files = logs::expand_inputs(paths, errors);
  bool any = false;
  for (const std::string& f : files) {
    const size_t slash = f.rfind('/');
    const std::string base = slash == std::string::npos ? f : f.substr(slash + 1);
    if (base != launch::kAttemptFileName) {
      out.other_paths.push_back(f);
      continue;
    }
    auto text = probe::read_regular_file(f, {.max_bytes = 256ull << 20});
    auto rec = text ? launch::parse_attempt_record(text->text) : Result<launch::AttemptRecord>(text.error());
    if (!rec) {
      out.errors.push_back(f + ": " + rec.error().message());
      out.other_paths.push_back(f);
      continue;
    }
    any = true;
    found.push_back({job_folder(f), probe::regular_file_mtime(f), std::move(*rec)});
  }
  if (!any) {
    out.other_paths = paths;  // nothing of launch's: the engine expands and reports as always
    return out;
  }
  // The newest job: the one whose record was written last.
  const auto newest = std::max_element(found.begin(), found.end(),
                                       [](const Found& a, const Found& b) { return a.mtime < b.mtime; });
  std::vector<std::string> jobs;
  for (const auto& r : found)
    if (std::find(jobs.begin(), jobs.end(), r.job) == jobs.end()) jobs.push_back(r.job);
  out.jobs = jobs.size();
  if (jobs.size() > 1) {
    out.job_dir = newest->job;
    std::erase_if(out.other_paths, [&](const std::string& p) { return !p.starts_with(out.job_dir + "/"); });
  }
  for (auto& r : found)
    if (r.job == newest->job &&
        std::none_of(out.attempts.begin(), out.attempts.end(),
                     [&](const launch::AttemptRecord& a) { return a.attempt == r.rec.attempt; }))
      out.attempts.push_back(std::move(r.rec));
  std::sort(
      out.attempts.begin(), out.attempts.end(),
      [](const launch::AttemptRecord& a, const launch::AttemptRecord& b) { return a.attempt < b.attempt; });
  return out;
}

std::vector<report::Finding> run_findings(std::vector<report::Finding> launched,
                                          const std::vector<report::Finding>& read) {
  const size_t from_launch = launched.size();
  std::vector<report::Finding> out = std::move(launched);
  const auto repeats = [&](const report::Finding& f) {
    return f.id == logs::ids::kFrStraggler &&
           std::any_of(out.begin(), out.begin() + from_launch,
                       [&](const auto& l) { return l.id == launch::ids::kJobStraggler && l.rank == f.rank; });
  };
  for (const auto& f : read)
    if (!repeats(f)) out.push_back(f);
  // One failure, one finding: the logs' reading of the rank launch named (its error, its stop) folds into it.
  logs::fold_same_failure(out, logs::Catalogue::builtin());
  return out;
}

}  // namespace dd::cli
