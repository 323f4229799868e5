// launch.interrupted and its evidence: an interrupt (Ctrl-C, a scheduler's SIGTERM) is diagnosed as a hang is
// before the workers are stopped (attempt_records.cc: stop_workers), so the report says which ranks were
// still running and where (their stacks, from launch's stack hook), and which had already ended and how.
#include <fmt/format.h>

#include "common/signal_name.h"
#include "launch/report_parts.h"

namespace dd::launch::parts {

namespace {

constexpr size_t kEndedShown = 8;   // ended ranks named one by one in the evidence; the rest counted
constexpr size_t kBriefStacks = 4;  // running ranks whose brief stack is in the evidence; all in details

}  // namespace

void add_interrupt_evidence(const AttemptRecord& a, report::Finding& f) {
  std::vector<int> running;
  std::vector<const RankRecord*> ended;
  for (const RankRecord* r : all_ranks(a)) {
    if (r->running || r->stopped_by_us)  // stopped_by_us without a snapshot: a second signal skipped it
      running.push_back(r->rank);
    else
      ended.push_back(r);
  }
  if (!running.empty())
    f.evidence.push_back(fmt::format("still running when it was interrupted: {}", ranks_phrase(running)));
  for (size_t i = 0; i < ended.size() && i < kEndedShown; ++i)
    f.evidence.push_back(fmt::format("rank {} had already ended: {}", ended[i]->rank, end_text(*ended[i])));
  if (ended.size() > kEndedShown)
    f.evidence.push_back(fmt::format("and {} more ranks had already ended", ended.size() - kEndedShown));
  size_t briefs = 0;
  for (const RankRecord* r : all_ranks(a)) {
    if (!r->running) continue;
    if (briefs < kBriefStacks && !r->stack.empty()) {
      add_brief_stack(f.evidence, *r, "running");
      ++briefs;
    }
    f.details.push_back(fmt::format("rank {} (local rank {}) on {}: still running{}", r->rank, r->local_rank,
                                    node_label(a, r->node_rank),
                                    last_line(*r).empty() ? "" : "; last line: \"" + last_line(*r) + "\""));
    add_stack(f.details, *r);
  }
  if (running.size() == 1) {
    f.rank = running.front();
    for (const RankRecord* r : all_ranks(a))
      if (r->rank == f.rank) f.node = host_of(a, r->node_rank);
  }
}

report::Finding interrupted_finding(const AttemptRecord& a) {
  const std::string sig = signal_name(interrupt_signal(a.stop.detail));
  report::Finding f{.id = "launch.interrupted", .severity = report::Severity::warn};
  f.title = fmt::format("the launch was interrupted by {}{}: every worker was stopped", sig,
                        a.stop.node_rank >= 0 ? " on " + node_label(a, a.stop.node_rank) : "");
  if (!a.stop.detail.empty()) f.evidence.push_back("detail: " + a.stop.detail);
  add_interrupt_evidence(a, f);
  f.fix = sig == "SIGINT"
              ? "Nothing to fix if you pressed Ctrl-C to end the job. If it was stuck, the stacks above show "
                "where each rank still running was; --hang-timeout SECONDS lets launch find the culprit by "
                "itself."
              : "A SIGTERM or SIGHUP usually comes from the scheduler (time limit, preemption), a closed "
                "terminal or a kill: check the job's time limit, or run under nohup/tmux.";
  return f;
}

}  // namespace dd::launch::parts
