// The cause across process groups (fr_analysis.h lists the kinds): desyncs first, then, from the group the
// most ranks wait in, the ranks that never issued what they wait for; ranks that wait are never blamed.
#include "logs/fr/fr_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "logs/fr/fr_group_report.h"

namespace dd::logs {

namespace {

const FrRankSummary* fr_rank(const FrSummary& s, int rank) {
  for (const auto& r : s.ranks)
    if (r.rank == rank) return &r;
  return nullptr;
}

const FrPgTrack* fr_track(const FrRankSummary& r, const std::string& pg) {
  for (const auto& t : r.groups)
    if (t.pg_name == pg) return &t;
  return nullptr;
}

// The culprit's op at (pg, seq) when its digest kept it, else its latest op.
void fr_locate(FrCulprit& c, const FrSummary& s, int rank, const std::string& pg, int64_t seq) {
  const FrRankSummary* r = fr_rank(s, rank);
  if (!r) return;
  if (const FrPgTrack* t = fr_track(*r, pg))
    for (const auto& d : t->detail)
      if (d.seq == seq && !d.is_p2p) {
        c.where = d;
        c.has_where = true;
        return;
      }
  if (r->has_last) {
    c.where = r->last;
    c.has_where = true;
  }
}

FrCulprit fr_mismatch_culprit(const FrGroupReport& g, const FrSummary& s) {
  const FrMismatch& m = g.mismatch;
  FrCulprit c;
  c.kind = m.kind == "op" ? "desync" : m.kind == "size" ? "size_mismatch" : "dtype_mismatch";
  c.ranks = m.odd_ranks;
  c.pg_name = g.pg_name;
  c.pg_desc = g.pg_desc;
  c.seq = m.seq;
  c.expected = m.sides[0].sig;
  c.did = m.sides[1].sig;
  for (int w : g.waiting)
    if (!std::count(c.ranks.begin(), c.ranks.end(), w)) c.waiting.push_back(w);
  fr_locate(c, s, c.ranks[0], g.pg_name, m.seq);
  c.detail = fmt::format("at seq {} of group {} rank(s) {} called {} where rank(s) {} called {}{}", m.seq,
                         g.pg_name, rank_list(c.ranks), signature_words(c.did), rank_list(m.sides[0].ranks),
                         signature_words(c.expected),
                         m.ambiguous ? " (as many ranks on each side: either may be at fault)" : "");
  return c;
}

// Ranks of group q (with a digest) that never issued seq in q.
std::vector<int> fr_never_issued(const std::vector<FrGroupReport>& groups, const std::string& q, int64_t seq,
                                 int self) {
  std::vector<int> out;
  for (const auto& g : groups)
    if (g.pg_name == q)
      for (const auto& p : g.positions)
        if (p.rank != self && p.issued < seq) out.push_back(p.rank);
  return out;
}

// The ranks of `c` sit in another group's collective: what that op is, and who never entered it.
FrCulprit in_other_group(FrCulprit c, const FrGroupReport& g, const std::vector<FrGroupReport>& groups,
                         const FrSummary& s, const std::string& what) {
  c.kind = "pg_desync";
  fr_locate(c, s, c.ranks[0], "", -1);
  const FrOpBrief& w = c.where;
  auto never = fr_never_issued(groups, w.pg_name, w.seq, c.ranks[0]);
  c.did = w.sig;
  c.detail = fmt::format(
      "rank(s) {} never issued seq {} of group {} ({}) that rank(s) {} wait in; rank {}'s latest op is {} "
      "on group "
      "{} seq {}{}",
      rank_list(c.ranks), g.frontier, g.pg_name, what, rank_list(g.waiting), c.ranks[0], w.sig.op, w.pg_name,
      w.seq, never.empty() ? "" : fmt::format(", which rank(s) {} never entered", rank_list(never)));
  return c;
}

// The ranks of `c` are in no collective: their last op completed, or they recorded none.
FrCulprit behind(FrCulprit c, const FrGroupReport& g, const FrSummary& s, const std::string& what,
                 const std::string& first) {
  c.kind = "behind";
  fr_locate(c, s, c.ranks[0], "", -1);
  const std::string last =
      c.has_where && c.where.seq >= 0
          ? fmt::format("their last op (seq {} of group {}) completed", c.where.seq, c.where.pg_name)
          : "they recorded no collective";
  c.detail = fmt::format(
      "rank(s) {} never issued seq {} of group {} ({}) that rank(s) {} wait in, and sit in no collective: "
      "{}{}",
      rank_list(c.ranks), g.frontier, g.pg_name, what, rank_list(g.waiting), last, first);
  return c;
}

void fr_frontier_culprits(const FrGroupReport& g, const std::vector<FrGroupReport>& groups,
                          const FrSummary& s, std::set<int>& blamed, const std::set<int>& waiters,
                          std::vector<FrCulprit>& out) {
  FrCulprit late, other_pg, missing;
  for (FrCulprit* c : {&late, &other_pg, &missing}) {
    c->pg_name = g.pg_name;
    c->pg_desc = g.pg_desc;
    c->seq = g.frontier;
    c->waiting = g.waiting;
    c->expected = g.frontier_sig;
  }
  for (int b : g.behind) {
    if (blamed.count(b) || waiters.count(b)) continue;
    const FrRankSummary* r = fr_rank(s, b);
    bool elsewhere = r && r->has_last && r->last.pg_name != g.pg_name;
    (elsewhere ? other_pg : late).ranks.push_back(b);
  }
  for (int m : g.no_dump)
    if (!blamed.count(m)) missing.ranks.push_back(m);
  std::string what = g.frontier_op.empty() ? std::string("it") : g.frontier_op;
  if (!other_pg.ranks.empty()) out.push_back(in_other_group(other_pg, g, groups, s, what));
  // No collective of the group completed: the first one is where the ranks stopped, and a rank that recorded
  // nothing has no "last op" to name.
  const std::string first = fr_none_completed(g)
                                ? fmt::format(
                                      "; no collective of group {} completed: the first, #{} {}, is where "
                                      "the ranks stopped",
                                      g.pg_name, g.frontier, what)
                                : "";
  if (!late.ranks.empty()) out.push_back(behind(late, g, s, what, first));
  if (!missing.ranks.empty()) {
    missing.kind = "missing_dump";
    missing.detail =
        fmt::format("rank(s) {} wait in seq {} of group {} ({}); rank(s) {} of the group left no dump",
                    rank_list(g.waiting), g.frontier, g.pg_name, what, rank_list(missing.ranks));
    out.push_back(missing);
  }
  if (g.behind.empty() && g.no_dump.empty() && !g.waiting.empty()) {
    FrCulprit stuck = late;
    stuck.kind = "stuck";
    stuck.ranks = g.waiting;
    fr_locate(stuck, s, g.waiting[0], g.pg_name, g.frontier);
    stuck.detail = fmt::format("every member of group {} issued seq {} ({}) and none completed it{}",
                               g.pg_name, g.frontier, what, first);
    out.push_back(stuck);
  }
  for (const auto& c : out)
    if (c.kind != "stuck" && c.kind != "missing_dump") blamed.insert(c.ranks.begin(), c.ranks.end());
}

}  // namespace

FrAnalysis analyze_fr_summary(const FrSummary& s) {
  FrAnalysis a;
  a.errors = s.errors;
  std::set<int> expected;
  std::set<std::string> versions;
  for (const auto& r : s.ranks) {
    if (r.rank >= 0) a.ranks.push_back(r.rank), expected.insert(r.rank);
    if (!r.version.empty()) versions.insert(r.version);
    for (const auto& g : r.groups) {
      expected.insert(g.members.begin(), g.members.end());
      for (const auto& run : g.runs) a.entries += run.count;
    }
  }
  a.versions.assign(versions.begin(), versions.end());
  a.expected.assign(expected.begin(), expected.end());
  for (int e : a.expected)
    if (!std::count(a.ranks.begin(), a.ranks.end(), e)) a.missing.push_back(e);
  a.groups = fr_group_reports(s);
  a.stragglers = find_stragglers(s);
  std::set<int> blamed, waiters;
  for (const auto& g : a.groups) {
    if (g.frontier >= 0) a.unfinished = true;
    if (g.has_mismatch) {
      a.culprits.push_back(fr_mismatch_culprit(g, s));
      blamed.insert(g.mismatch.odd_ranks.begin(), g.mismatch.odd_ranks.end());
    }
  }
  // The group the most ranks wait in first: its waiting ranks are victims in every later group.
  std::vector<const FrGroupReport*> order;
  for (const auto& g : a.groups)
    if (g.frontier >= 0 && !g.has_mismatch) order.push_back(&g);
  std::stable_sort(order.begin(), order.end(), [](const FrGroupReport* x, const FrGroupReport* y) {
    return x->waiting.size() > y->waiting.size();
  });
  for (const FrGroupReport* g : order) {
    bool victims_only =
        std::all_of(g->waiting.begin(), g->waiting.end(), [&](int w) { return blamed.count(w) > 0; });
    if (victims_only) continue;  // a blamed rank waits here for others it left behind: a consequence
    fr_frontier_culprits(*g, a.groups, s, blamed, waiters, a.culprits);
    waiters.insert(g->waiting.begin(), g->waiting.end());
  }
  return a;
}

FrAnalysis analyze_flight_records(const std::vector<FlightRecord>& records) {
  return analyze_fr_summary(summarize_flight_records(records));
}

std::string rank_list(const std::vector<int>& ranks) {
  std::vector<int> r = ranks;
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  std::string out;
  for (size_t i = 0; i < r.size();) {
    size_t j = i;
    while (j + 1 < r.size() && r[j + 1] == r[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + (j > i ? fmt::format("{}-{}", r[i], r[j]) : std::to_string(r[i]));
    i = j + 1;
  }
  return out;
}

bool fr_none_completed(const FrGroupReport& g) {
  return !g.positions.empty() && std::all_of(g.positions.begin(), g.positions.end(),
                                             [](const FrRankPos& p) { return p.completed < 0; });
}

std::string frames_text(const std::vector<FrFrame>& frames, size_t max) {
  std::string out;
  for (size_t i = 0; i < frames.size() && i < max; ++i)
    out += (i ? " <- " : "") + fmt::format("{} ({}:{})", frames[i].name, frames[i].file, frames[i].line);
  return out;
}

}  // namespace dd::logs
