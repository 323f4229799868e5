// One process group across ranks: members and their positions (issued, completed), the first disagreeing
// collective sequence number in the digests' windows, and the frontier (the first seq someone waits on).
#include "logs/fr/fr_group_report.h"

#include <algorithm>
#include <map>
#include <string>

namespace dd::logs {

namespace {

// Ops whose sizes legitimately differ across ranks (roots of gather/scatter, uneven all_to_all splits,
// point-to-point, coalesced markers): only op and dtype must match there.
bool fr_sizes_must_match(const std::string& op) {
  if (op == "gather" || op == "scatter" || op.find("gather+") == 0) return false;
  for (const char* s : {"all_to_all", "alltoall", "coalesced", "send", "recv"})
    if (op.find(s) != std::string::npos) return false;
  return true;
}

// The part of a signature's sizes ("in [[8]] out [[4,8]]") that must match across ranks: all of it, but for
// all_gather only the outputs (an uneven all_gather gives each rank its own input size and every rank the
// same list of outputs) and for reduce_scatter only the inputs (the mirror image).
std::string fr_shared_sizes(const FrSignature& s) {
  const size_t out = s.sizes.find(" out ");
  if (out == std::string::npos) return s.sizes;
  if (s.op.find("all_gather") != std::string::npos) return s.sizes.substr(out + 1);
  if (s.op.find("reduce_scatter") != std::string::npos) return s.sizes.substr(0, out);
  return s.sizes;
}

// "" when a and b match; else the first field that differs.
const char* fr_difference(const FrSignature& a, const FrSignature& b) {
  if (a.op != b.op) return "op";
  if (fr_sizes_must_match(a.op) && fr_shared_sizes(a) != fr_shared_sizes(b)) return "size";
  if (a.dtypes != b.dtypes) return "dtype";
  return "";
}

std::map<int64_t, const FrSignature*> fr_window(const FrPgTrack& t) {
  std::map<int64_t, const FrSignature*> w;
  for (const auto& r : t.runs)
    for (int64_t k = 0; k < r.count && r.sig < t.sigs.size(); ++k) w[r.start + k] = &t.sigs[r.sig];
  return w;
}

void fr_find_mismatch(FrGroupReport& g, const std::map<int, const FrPgTrack*>& tracks) {
  std::map<int, std::map<int64_t, const FrSignature*>> windows;
  std::map<int64_t, std::vector<int>> seqs;  // seq -> ranks that have it
  for (const auto& [rank, t] : tracks) {
    windows[rank] = fr_window(*t);
    for (const auto& [seq, sig] : windows[rank]) seqs[seq].push_back(rank);
  }
  std::map<int, int64_t> issued;
  for (const auto& p : g.positions) issued[p.rank] = p.issued;
  for (const auto& [seq, ranks] : seqs) {
    if (ranks.size() < 2) continue;
    std::vector<FrSide> sides;
    const char* kind = "";
    for (int r : ranks) {
      const FrSignature& sig = *windows[r][seq];
      auto it = std::find_if(sides.begin(), sides.end(),
                             [&](const FrSide& s) { return !*fr_difference(s.sig, sig); });
      if (it == sides.end()) {
        if (!sides.empty() && !*kind) kind = fr_difference(sides[0].sig, sig);
        sides.push_back({sig, {r}});
      } else {
        it->ranks.push_back(r);
      }
    }
    if (sides.size() < 2) continue;
    auto furthest = [&](const FrSide& s) {
      int64_t m = -1;
      for (int r : s.ranks) m = std::max(m, issued[r]);
      return m;
    };
    // The expected side first: the most ranks; on a tie the side that went less far (the other went on).
    std::stable_sort(sides.begin(), sides.end(), [&](const FrSide& a, const FrSide& b) {
      if (a.ranks.size() != b.ranks.size()) return a.ranks.size() > b.ranks.size();
      return furthest(a) < furthest(b);
    });
    FrMismatch& m = g.mismatch;
    m.seq = seq;
    m.kind = kind;
    m.ambiguous = sides[0].ranks.size() == sides[1].ranks.size() && furthest(sides[0]) == furthest(sides[1]);
    for (size_t i = 1; i < sides.size(); ++i)
      m.odd_ranks.insert(m.odd_ranks.end(), sides[i].ranks.begin(), sides[i].ranks.end());
    std::sort(m.odd_ranks.begin(), m.odd_ranks.end());
    m.sides = std::move(sides);
    m.window_start = seqs.begin()->first;
    g.has_mismatch = true;
    return;
  }
}

void fr_find_frontier(FrGroupReport& g, const std::map<int, const FrPgTrack*>& tracks) {
  for (const auto& p : g.positions)
    if (p.issued > p.completed && (g.frontier < 0 || p.completed + 1 < g.frontier))
      g.frontier = p.completed + 1;
  if (g.frontier < 0) return;
  int64_t waiting_issued = -1;
  for (const auto& p : g.positions)
    if (p.completed < g.frontier && p.issued >= g.frontier) {
      g.waiting.push_back(p.rank);
      waiting_issued = std::max(waiting_issued, p.issued);
      if (g.frontier_op.empty())
        for (const auto& [rank, t] : tracks)
          if (rank == p.rank)
            for (const auto& [seq, sig] : fr_window(*t))
              if (seq == g.frontier) {
                g.frontier_op = signature_words(*sig);
                g.frontier_sig = *sig;
              }
    }
  for (const auto& p : g.positions) {
    if (p.issued < g.frontier)
      g.behind.push_back(p.rank);
    else if (p.completed >= g.frontier || p.issued > waiting_issued)
      g.ahead.push_back(p.rank);
  }
}

}  // namespace

std::vector<FrGroupReport> fr_group_reports(const FrSummary& s) {
  std::map<std::string, FrGroupReport> groups;
  std::map<std::string, std::map<int, const FrPgTrack*>> tracks;  // group -> rank -> its track
  for (const auto& r : s.ranks)
    for (const auto& t : r.groups) {
      FrGroupReport& g = groups[t.pg_name];
      g.pg_name = t.pg_name;
      if (g.pg_desc.empty()) g.pg_desc = t.pg_desc;
      if (g.members.empty()) g.members = t.members;
      if (r.rank >= 0) tracks[t.pg_name][r.rank] = &t;
    }
  std::map<int, bool> dumped;
  for (const auto& r : s.ranks) dumped[r.rank] = true;
  std::vector<FrGroupReport> out;
  for (auto& [name, g] : groups) {
    auto& tr = tracks[name];
    if (g.members.empty())
      for (const auto& [rank, t] : tr) g.members.push_back(rank);
    std::sort(g.members.begin(), g.members.end());
    g.members.erase(std::unique(g.members.begin(), g.members.end()), g.members.end());
    for (int m : g.members) {
      if (!dumped.count(m)) {
        g.no_dump.push_back(m);
        continue;
      }
      auto it = tr.find(m);
      g.positions.push_back(
          {m, it == tr.end() ? -1 : it->second->issued, it == tr.end() ? -1 : it->second->completed});
    }
    fr_find_mismatch(g, tr);
    fr_find_frontier(g, tr);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace dd::logs
