// Cross-rank rule: the rank late to NCCL init (logs.init.late_rank). The others printed NCCL's init lines
// (Init START, the comm line) and no Init COMPLETE, so they waited in init for a peer; the rank of the
// communicator that printed no NCCL line at all (its log ends before init, or it is silent) is the one they
// waited for. Never the ranks that waited: they only followed.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "logs/log_finding_ids.h"
#include "logs/log_rules.h"
#include "logs/rank_state.h"
#include "report/rank_ranges.h"

namespace dd::logs {

using report::Finding;
using report::Severity;

namespace {

// A process inside NCCL init: it printed INFO lines of a communicator's init and no Init COMPLETE.
bool li_in_init(const ProcessFacts& p) {
  return p.rank >= 0 && p.infos > 0 && (p.comm_inits > 0 || !p.bus_id.empty()) && p.init_complete == 0;
}

std::string li_waiter_line(const ProcessFacts& p) {
  return fmt::format("rank {} ({}): started NCCL init{}, no Init COMPLETE; last NCCL line {}", p.rank,
                     p.label(), p.nranks > 0 ? fmt::format(" of {} ranks", p.nranks) : "", p.last_at.str());
}

}  // namespace

void late_init_rule(const LogsResult& r, const std::vector<RankState>& st, std::vector<Finding>& out) {
  std::vector<const ProcessFacts*> waiting;
  std::set<int> with_nccl;
  int nranks = -1;
  for (const auto& p : r.processes) {
    if (p.init_complete > 0) return;  // init got through: nobody was missing from it
    if (p.rank >= 0 && p.nccl_lines > 0) with_nccl.insert(p.rank);
    if (!li_in_init(p)) continue;
    waiting.push_back(&p);
    nranks = std::max(nranks, p.nranks);
  }
  if (waiting.empty() || nranks <= 0) return;
  std::vector<int> late;
  for (int k = 0; k < nranks && k < 65536; ++k)
    if (!with_nccl.count(k)) late.push_back(k);
  if (late.empty()) return;
  // A late rank that ended by itself (a traceback, an exit of its own) is named by the progress rules.
  for (const auto& s : st)
    if (s.progress->rank >= 0 && !s.stopped.empty() && std::count(late.begin(), late.end(), s.progress->rank))
      return;
  std::vector<int> waiters;
  for (const auto* p : waiting) waiters.push_back(p->rank);
  const std::string who = report::ranks_phrase(late), them = report::ranks_phrase(waiters);
  Finding f = logs_finding(
      ids::kInitLateRank, Severity::fail,
      fmt::format("{} never started NCCL init while {} waited in it (Init START, no Init COMPLETE): {} was "
                  "late or stuck before init_process_group",
                  who, them, who),
      fmt::format(
          "Look at what {} did before init_process_group (data or checkpoint loading, a sleep, a lock, "
          "a download, a hang in its own setup): a py-spy or faulthandler dump of it while the others "
          "wait shows where. NCCL init waits for every rank; the others' init timeouts and aborts only "
          "follow. If {} did start, its NCCL output is missing from these logs (NCCL_DEBUG=INFO on "
          "every rank).",
          who, who));
  f.rank = late.size() == 1 ? late.front() : -1;
  for (int k : late) {
    std::string line = fmt::format("rank {}: no NCCL line in these logs", k);
    for (const auto& s : st)
      if (s.progress->rank == k && !s.progress->last_line.empty())
        line += fmt::format("; its last line ({}): {}", s.progress->last_at.str(), s.progress->last_line);
    f.evidence.push_back(std::move(line));
  }
  for (const auto* p : waiting)
    if (f.evidence.size() < 16) f.evidence.push_back(li_waiter_line(*p));
  out.push_back(std::move(f));
}

report::FindingDoc late_init_doc() {
  return {
      ids::kInitLateRank, "A rank never started NCCL init while the others waited in it",
      "The other ranks printed NCCL's init lines (Init START, bootstrap) without Init COMPLETE, so they "
      "waited in init for a peer; this rank printed no NCCL line at all, or stopped before init: it was late "
      "(slow data loading or checkpoint reading, a sleep, a hang before init_process_group) or never got "
      "there. The ranks that waited only followed it.",
      "Look at what that rank did before init_process_group (data or checkpoint loading, a sleep, a hang): "
      "its own output and stack show where; start every rank's init at about the same time, or raise the "
      "init timeout for work that is slow by design."};
}

}  // namespace dd::logs
