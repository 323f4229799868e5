// The evidence of launch.interrupted: an interrupt (Ctrl-C, a scheduler's SIGTERM) is diagnosed as a hang is
// before the workers are stopped (attempt_records.cc: stop_workers), so the report says which ranks were
// still running and where (their stacks, from launch's stack hook), and which had already ended and how.
#include <fmt/format.h>

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

}  // namespace dd::launch::parts
