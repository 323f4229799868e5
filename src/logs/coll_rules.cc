// Cross-rank rule: ranks that issued different numbers of collectives (NCCL_DEBUG_SUBSYS=COLL), per op and,
// with --iteration-pattern, the first iteration where the counts split.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "logs/log_finding_ids.h"
#include "logs/log_rules.h"

namespace dd::logs {

using report::Finding;
using report::Severity;

namespace {

// "AllReduce: 10 call(s) on r0, r1; 9 call(s) on r2;" when the op's counts differ, else "".
std::string op_count_split(const std::string& op, const std::vector<const ProcessFacts*>& ps) {
  std::map<uint64_t, std::vector<const ProcessFacts*>> by;
  for (const auto* p : ps) {
    auto it = p->coll_counts.find(op);
    by[it == p->coll_counts.end() ? 0 : it->second].push_back(p);
  }
  if (by.size() < 2) return "";
  std::string ev = op + ":";
  for (const auto& [n, who] : by) {
    ev += fmt::format(" {} call(s) on", n);
    for (size_t i = 0; i < who.size() && i < 6; ++i) ev += (i ? ", " : " ") + who[i]->label();
    if (who.size() > 6) ev += fmt::format(" … ({} in all)", who.size());
    ev += ";";
  }
  return ev;
}

std::string show_counts(const OpCounts& m) {
  std::string s;
  for (const auto& [op, n] : m) s += fmt::format("{}{}={}", s.empty() ? "" : " ", op, n);
  return s.empty() ? std::string("none") : s;
}

// With --iteration-pattern: puts the first iteration where a rank's counts differ from the first rank's at
// the front of the evidence.
void add_first_differing_iteration(const std::vector<const ProcessFacts*>& ps, Finding& f) {
  size_t iters = SIZE_MAX;
  for (const auto* p : ps) iters = std::min(iters, p->iterations.size());
  if (iters == SIZE_MAX || iters == 0) return;
  for (size_t it = 0; it < iters; ++it) {
    const auto& ref = ps[0]->iterations[it];
    for (const auto* p : ps) {
      if (p->iterations[it] == ref) continue;
      f.evidence.insert(f.evidence.begin(), fmt::format("first differing iteration: #{} ({}: {} vs {}: {})",
                                                        it + 1, ps[0]->label(), show_counts(ref), p->label(),
                                                        show_counts(p->iterations[it])));
      if (f.evidence.size() == 1)
        f.evidence.push_back("(per-op totals agree; the order within iterations differs)");
      return;
    }
  }
}

void coll_rules(const LogsResult& r, std::vector<Finding>& out) {
  std::vector<const ProcessFacts*> ps;
  std::set<std::string> ops;
  for (const auto& p : r.processes)
    if (!p.coll_counts.empty()) {
      ps.push_back(&p);
      for (const auto& [op, n] : p.coll_counts) ops.insert(op);
    }
  if (ps.size() < 2) return;
  Finding f = logs_finding(
      ids::kCollDesync, Severity::fail, "",
      "Ranks issued different numbers of collectives: some code path (a data-dependent branch, an "
      "uneven last batch, a rank-0-only call) runs a collective on some ranks only. The job hangs "
      "at the first unmatched call. TORCH_DISTRIBUTED_DEBUG=DETAIL reports the mismatching op. (Logs "
      "cut at different "
      "moments, e.g. a job killed mid-step, also differ by the few calls in flight.)");
  for (const auto& op : ops) {
    // Point-to-point counts differ by design between pipeline stages: only collectives must agree.
    if (op == "Send" || op == "Recv") continue;
    std::string ev = op_count_split(op, ps);
    if (!ev.empty()) f.evidence.push_back(std::move(ev));
  }
  add_first_differing_iteration(ps, f);
  if (f.evidence.empty()) return;
  f.title = fmt::format("Collective counts differ between ranks ({} op type(s)): the job is desynchronised",
                        f.evidence.size());
  out.push_back(std::move(f));
}

}  // namespace

LogRule coll_log_rule() {
  return {
      .name = "coll",
      .fn = coll_rules,
      .docs =
          {
              {ids::kCollDesync, "Ranks issued different numbers of collectives",
               "Counted from NCCL_DEBUG_SUBSYS=COLL lines per rank and operation; with --iteration-pattern "
               "the first iteration where the counts split is named. A rank-dependent branch or an uneven "
               "last batch is the usual cause; the job hangs at the first unmatched call."},
          },
  };
}

}  // namespace dd::logs
