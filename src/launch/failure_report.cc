// The launch report: the rows of the last attempt's StopCause and the parts that follow it
// (failure_report_rows.h), silent nodes, and one line per earlier attempt; and the launcher's exit code.
#include "launch/failure_report.h"

#include <fmt/format.h>

#include <utility>

#include "launch/failure_report_ids.h"
#include "launch/failure_report_rows.h"
#include "launch/report_parts.h"
#include "logs/finding_fold.h"

namespace dd::launch {

// logs/ folds launch's diagnosis of a failed rank by this id and cannot include launch/: one spelling.
static_assert(std::string_view(ids::kRankFailed) == logs::kDiagnosedRankFailureId);

using report::Finding;

namespace {

void add_all(report::Report& r, std::vector<Finding> fs) {
  for (auto& f : fs) r.add(std::move(f));
}

}  // namespace

report::Report build_launch_report(const std::vector<AttemptRecord>& attempts) {
  report::Report r;
  r.title = "distdoctor launch";
  if (attempts.empty()) return r;
  const AttemptRecord& last = attempts.back();
  if (!last.command.empty()) r.notes.push_back("command: " + parts::command_text(last.command));
  if (attempts.size() > 1)
    r.notes.push_back(fmt::format("{} attempts; the findings are the last one's", attempts.size()));
  const StopCauseRow& cause = stop_cause_row(last.stop.cause);
  add_all(r, cause.build(last));
  for (const LaunchPart* part : cause.then()) add_all(r, part->build(last));
  logs::fold_same_failure(r.findings, logs::Catalogue::builtin());  // its diagnosis: one finding with it
  add_all(r, silent_nodes_part().build(last));
  for (size_t i = 0; i + 1 < attempts.size(); ++i) add_all(r, attempt_part().build(attempts[i]));
  for (const auto& a : attempts)  // a scheduler's SIGUSR1 and the like: what the workers were sent, and when
    for (const auto& n : a.nodes)
      for (const auto& s : n.signals)
        r.notes.push_back(fmt::format("{}{}: {}",
                                      attempts.size() > 1 ? fmt::format("attempt {}, ", a.attempt) : "",
                                      parts::node_label(a, n.node_rank), s));
  r.facts = nlohmann::json{{"attempts", attempts}};
  return r;
}

int launch_exit_code(const AttemptRecord& last) {
  switch (last.stop.cause) {
    case StopCause::none:
      return report::kExitPass;
    case StopCause::scheduler_failed:  // a companion process: its status goes in worker_exit_code
    case StopCause::worker_failed:
      return kExitJobFailed;
    case StopCause::hang:
      return kExitHang;
    case StopCause::interrupted:
      return 128 + parts::interrupt_signal(last.stop.detail);
    case StopCause::node_lost:
    case StopCause::master_lost:
      return report::kExitFail;
    case StopCause::cannot_start:
      return report::kExitCannotRun;
  }
  return report::kExitFail;
}

std::optional<int> worker_exit_code(const AttemptRecord& last) {
  if (last.stop.cause == StopCause::none) return 0;
  if (last.stop.cause != StopCause::worker_failed && last.stop.cause != StopCause::scheduler_failed)
    return std::nullopt;
  const RankRecord root = parts::root_record(last);
  if (root.signal > 0) return 128 + root.signal;
  return root.exit_code >= 0 ? std::optional<int>(root.exit_code) : std::nullopt;
}

}  // namespace dd::launch
