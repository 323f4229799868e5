// The hang analysis of hang_analysis.h: groups the watchdog records by process group, finds the first wave
// of timeouts and the sequence number it waits in, then looks for the odd one out, the rank ahead, the late
// rank and the rank that never issued it, in that order.
#include "logs/hang_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace dd::logs {

namespace {

constexpr int64_t kUs = 1000000;
constexpr int64_t kMinLateUs = 5 * kUs;  // a timeout this much after the first wave is another wave

struct HaRank {
  const WatchdogTimeout* first = nullptr;   // its first timeout
  const WatchdogTimeout* status = nullptr;  // its first report of where it stood
  bool seen = false;                        // any line at all in this group
};

bool ha_earlier(const WatchdogTimeout& a, const WatchdogTimeout& b) {
  if (a.time >= 0 && b.time >= 0 && a.time != b.time) return a.time < b.time;
  return false;  // same or unknown time: the one seen first stays
}

std::string ha_sig(const WatchdogTimeout& w) {
  std::string s = w.op;
  if (w.numel_in >= 0) s += fmt::format(" NumelIn={}", w.numel_in);
  if (w.numel_out >= 0) s += fmt::format(" NumelOut={}", w.numel_out);
  return s;
}

std::string ha_line(const WatchdogTimeout& w) {
  if (!w.op.empty())
    return fmt::format("{} rank {}: timed out in {} SeqNum={}{}{}", w.at.str(), w.rank, ha_sig(w), w.seq,
                       w.last_enqueued >= 0 ? fmt::format(", last enqueued {}", w.last_enqueued) : "",
                       w.last_completed >= 0 ? fmt::format(", last completed {}", w.last_completed) : "");
  return fmt::format("{} rank {}: last enqueued work {}, last completed {} (no timeout of its own there)",
                     w.at.str(), w.rank, w.last_enqueued, w.last_completed);
}

// The one group of the most ranks, if it is unique: the majority; the rest are the odd ones out.
std::vector<int> ha_minority(const std::map<std::string, std::vector<int>>& by, std::string& majority,
                             std::string& odd) {
  size_t best = 0, ties = 0;
  for (const auto& [sig, rs] : by) {
    if (rs.size() > best) {
      best = rs.size();
      ties = 1;
      majority = sig;
    } else if (rs.size() == best) {
      ++ties;
    }
  }
  std::vector<int> out;
  if (ties != 1) return out;
  for (const auto& [sig, rs] : by)
    if (sig != majority) {
      out.insert(out.end(), rs.begin(), rs.end());
      if (odd.empty()) odd = sig;
    }
  std::sort(out.begin(), out.end());
  return out;
}

// The ranks of one group sorted by where their first timeout puts them.
struct HaSplit {
  std::map<int, HaRank> ranks;
  std::map<std::string, std::vector<int>> at_seq;  // first-wave ranks at the lowest SeqNum, by op and sizes
  std::vector<int> ahead, late, missing;
  std::string majority;  // the op and sizes most of at_seq issued
};

// Fills v.first_time, timeout_ms, seq and waiters; false when no rank timed out.
bool ha_split(const std::vector<const WatchdogTimeout*>& recs, HangVerdict& v, HaSplit& sp) {
  for (const auto* w : recs) {
    HaRank& r = sp.ranks[w->rank];
    r.seen = true;
    if (!w->op.empty() && (!r.first || ha_earlier(*w, *r.first))) r.first = w;
    if (w->last_enqueued >= 0 && (!r.status || ha_earlier(*w, *r.status))) r.status = w;
  }
  const WatchdogTimeout* f0 = nullptr;
  for (const auto& [rank, r] : sp.ranks)
    if (r.first && (!f0 || ha_earlier(*r.first, *f0))) f0 = r.first;
  if (!f0) return false;
  v.first_time = f0->time;
  v.timeout_ms = f0->timeout_ms;
  const int64_t window = std::max(kMinLateUs, v.timeout_ms > 0 ? v.timeout_ms * 1000 / 2 : 0);
  auto in_wave = [&](const WatchdogTimeout* w) {
    return w->time < 0 || f0->time < 0 || w->time <= f0->time + window;
  };
  v.seq = INT64_MAX;
  for (const auto& [rank, r] : sp.ranks)
    if (r.first && in_wave(r.first)) v.seq = std::min(v.seq, r.first->seq);
  for (const auto& [rank, r] : sp.ranks) {
    if (r.first && in_wave(r.first) && r.first->seq == v.seq) {
      sp.at_seq[ha_sig(*r.first)].push_back(rank);
      v.waiters.push_back(rank);
      if (sp.majority.empty()) sp.majority = ha_sig(*r.first);
    } else if (r.first && in_wave(r.first)) {
      sp.ahead.push_back(rank);
    } else if (r.first) {
      sp.late.push_back(rank);
    } else if (r.status && r.status->last_enqueued < v.seq) {
      sp.missing.push_back(rank);
    }
  }
  return true;
}

void ha_set_culprit_seq(HangVerdict& v, const HaRank& r) {
  v.culprit_seq = r.first->seq;
  v.culprit_seq_op = r.first->op;
  v.culprit_time = r.first->time;
}

// The kinds in order: desync, ahead, late, missing (with its status or silent), unknown.
void ha_decide(HaSplit& sp, const std::vector<int>& known, bool use_known, HangVerdict& v) {
  std::vector<int> odd =
      sp.at_seq.size() > 1 ? ha_minority(sp.at_seq, sp.majority, v.culprit_op) : std::vector<int>{};
  for (const auto& [rank, r] : sp.ranks)
    if (r.first && r.first->seq == v.seq && ha_sig(*r.first) == sp.majority) {
      v.op = r.first->op;
      v.numel_in = r.first->numel_in;
      v.numel_out = r.first->numel_out;
      break;
    }
  if (!odd.empty()) {
    v.kind = HangKind::desync;
    v.culprits = odd;
    std::erase_if(v.waiters, [&](int k) { return std::count(odd.begin(), odd.end(), k) > 0; });
  } else if (sp.ahead.size() > v.waiters.size()) {  // most went on: the few left behind are the odd ones
    v.kind = HangKind::desync;
    v.culprits = v.waiters;
    v.waiters = sp.ahead;
    v.culprit_op = sp.majority;
    ha_set_culprit_seq(v, sp.ranks[sp.ahead[0]]);
    v.op.clear();  // what the others issued at seq is not in the logs (it completed for them)
  } else if (!sp.ahead.empty() && sp.ahead.size() < v.waiters.size()) {
    v.kind = HangKind::ahead;
    v.culprits = sp.ahead;
    ha_set_culprit_seq(v, sp.ranks[sp.ahead[0]]);
  } else if (!sp.late.empty() || !sp.missing.empty()) {
    v.kind = sp.late.empty() ? HangKind::missing : HangKind::late;
    v.culprits = sp.late.empty() ? sp.missing : sp.late;
    if (!sp.late.empty()) ha_set_culprit_seq(v, sp.ranks[sp.late[0]]);
    const auto* st = sp.ranks[v.culprits[0]].status;
    if (st && st->last_enqueued < v.seq) v.culprit_enqueued = st->last_enqueued;
  } else {
    v.kind = HangKind::unknown;
    if (use_known)  // a rank of the job that printed nothing here while the others timed out
      for (int k : known)
        if (!sp.ranks.count(k)) v.culprits.push_back(k);
    if (!v.culprits.empty()) {
      v.kind = HangKind::missing;
      v.culprit_silent = true;
    }
  }
}

// The culprits' lines first, then the others' first timeouts.
void ha_evidence(HaSplit& sp, HangVerdict& v) {
  for (int k : v.waiters)
    if (sp.ranks[k].first)
      v.waiters_enqueued = std::max(v.waiters_enqueued, sp.ranks[k].first->last_enqueued);
  std::set<int> named(v.culprits.begin(), v.culprits.end());
  for (const auto& [rank, r] : sp.ranks) {
    if (!named.count(rank)) continue;
    if (r.status && r.status != r.first) v.evidence.push_back(ha_line(*r.status));
    if (r.first) v.evidence.push_back(ha_line(*r.first));
  }
  for (const auto& [rank, r] : sp.ranks)
    if (!named.count(rank) && r.first && v.evidence.size() < 12) v.evidence.push_back(ha_line(*r.first));
}

HangVerdict ha_group(const std::string& pg, const std::vector<const WatchdogTimeout*>& recs,
                     const std::vector<int>& known, bool use_known) {
  HangVerdict v;
  v.pg = pg;
  HaSplit sp;
  if (!ha_split(recs, v, sp)) return v;
  ha_decide(sp, known, use_known, v);
  ha_evidence(sp, v);
  return v;
}

}  // namespace

std::string rank_commas(const std::vector<int>& ranks) {
  std::string s;
  for (int k : ranks) s += (s.empty() ? "" : ", ") + std::to_string(k);
  return s;
}

std::string pg_name(const std::string& pg) {
  size_t open = pg.find('(');
  if (open != std::string::npos && pg.back() == ')') return pg.substr(open + 1, pg.size() - open - 2);
  return pg.empty() ? "" : "PG " + pg;
}

std::vector<HangVerdict> analyze_hangs(const std::vector<WatchdogTimeout>& records,
                                       const std::vector<int>& known_ranks) {
  // Records without a group belong to the only group the others name, if there is one.
  std::map<std::string, std::vector<const WatchdogTimeout*>> groups;
  std::set<std::string> named;
  for (const auto& w : records)
    if (!w.pg.empty()) named.insert(w.pg);
  for (const auto& w : records) {
    if (w.dump_only || w.rank < 0) continue;
    groups[w.pg.empty() && named.size() == 1 ? *named.begin() : w.pg].push_back(&w);
  }
  std::vector<HangVerdict> out;
  for (const auto& [pg, recs] : groups) {
    bool default_group = groups.size() == 1 || pg.find("default_pg") != std::string::npos;
    HangVerdict v = ha_group(pg, recs, known_ranks, default_group);
    if (v.kind != HangKind::none) out.push_back(std::move(v));
  }
  // The group whose first timeout came first leads (the others usually follow from it).
  std::stable_sort(out.begin(), out.end(), [](const HangVerdict& a, const HangVerdict& b) {
    if ((a.kind == HangKind::unknown) != (b.kind == HangKind::unknown)) return b.kind == HangKind::unknown;
    return a.first_time >= 0 && b.first_time >= 0 && a.first_time < b.first_time;
  });
  return out;
}

}  // namespace dd::logs
