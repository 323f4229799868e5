// Parallel scan of many inputs (an atomic work index over N threads) into one LogsResult, and its JSON facts.
#include "logs/analyze.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>

namespace dd::logs {

LogsResult analyze_logs(const LogsOptions& opt, const Catalogue& cat) {
  std::vector<std::string> errors;
  std::vector<std::string> inputs = expand_inputs(opt.paths, errors);
  std::vector<FileResult> results(inputs.size());
  unsigned jobs =
      opt.jobs > 0 ? static_cast<unsigned>(opt.jobs) : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, std::max<size_t>(1, inputs.size()));
  RunBudget budget;  // the processes and Flight Recorder values every file and thread draws from
  ScanOptions scan = opt.scan;
  if (!scan.budget) scan.budget = &budget;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < inputs.size();) results[i] = scan_file(inputs[i], cat, scan);
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  LogsResult r = merge_results(std::move(results), cat);
  r.input_errors = std::move(errors);
  return r;
}

nlohmann::json logs_facts_json(const LogsResult& r) {
  nlohmann::json j;
  j["files"] = r.files;
  j["processes"] = r.processes;
  std::map<std::string, uint64_t> totals;
  for (const auto& p : r.processes)
    for (const auto& [op, n] : p.coll_counts) totals[op] += n;
  j["collectives_total"] = totals;
  j["watchdog_timeouts"] = r.watchdogs;
  j["child_failures"] = r.child_failures;
  j["input_errors"] = r.input_errors;
  j["ranks"] = r.ranks;
  j["exits"] = r.exits;
  return j;
}

}  // namespace dd::logs
