// hang_culprit(): the methods of hang_culprit.h, tried in order; the first that singles out ranks wins. The
// two that find the rank that is different (it left, it runs another NCCL) are in odd_rank_culprit.cc.
#include "launch/hang_culprit.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "launch/culprit_methods.h"
#include "launch/python_stack.h"
#include "launch/report_parts.h"
#include "logs/fr/fr_analysis.h"
#include "logs/hang_verdict_text.h"
#include "logs/watchdog_lines.h"

namespace dd::launch {

using culprit::by_early_exit;
using culprit::by_flight_recorder;
using culprit::by_identity;

namespace {

constexpr double kIdleCpuFraction = 0.02;

using parts::ranks_phrase;

std::vector<const RankRecord*> live_ranks(const AttemptRecord& a) {
  std::vector<const RankRecord*> live;
  for (const RankRecord* r : parts::all_ranks(a))
    if (r->running) live.push_back(r);
  return live.empty() ? parts::all_ranks(a) : live;
}

// Groups by key; the unique smallest group when there are several, else nothing.
template <class Key>
std::vector<int> odd_group(const std::map<Key, std::vector<int>>& groups) {
  if (groups.size() < 2) return {};
  size_t smallest = SIZE_MAX, second = SIZE_MAX;
  const std::vector<int>* pick = nullptr;
  for (const auto& [k, ranks] : groups) {
    if (ranks.size() < smallest) {
      second = smallest;
      smallest = ranks.size();
      pick = &ranks;
    } else if (ranks.size() < second) {
      second = ranks.size();
    }
  }
  return pick && smallest < second ? *pick : std::vector<int>{};
}

// A rank in state T (SIGSTOP, Ctrl-Z, a scheduler's suspend) or t (a debugger holds it) runs nothing, so it
// cannot reach any collective: while the others wait, it is the cause whatever they print or record.
bool by_process_state(const AttemptRecord& a, HangCulprit& c) {
  std::vector<int> others;
  for (const RankRecord* r : parts::all_ranks(a)) {
    if (!r->running) continue;
    if (!is_stopped_state(r->proc_state)) {
      others.push_back(r->rank);
      continue;
    }
    c.ranks.push_back(r->rank);
    c.evidence.push_back(fmt::format("rank {} (pid {}): state {}", r->rank, r->pid, r->proc_state));
  }
  if (c.ranks.empty()) return false;
  c.method = "process state";
  c.why =
      others.empty()
          ? "every rank is stopped (state T): the job was suspended (Ctrl-Z, a scheduler's suspend, SIGSTOP "
            "to its process group)"
          : fmt::format("{} {} stopped (state T) while {} wait{}: a stopped process runs nothing",
                        ranks_phrase(c.ranks), c.ranks.size() == 1 ? "is" : "are", ranks_phrase(others),
                        others.size() == 1 ? "s" : "");
  return true;
}

// The watchdog lines in the ranks' tails, read and analysed as `logs` reads a log (logs/watchdog_lines.h):
// the odd one out at a SeqNum (its op or sizes), a rank ahead, late, or one that never reached the
// collective.
bool by_watchdog_lines(const AttemptRecord& a, HangCulprit& c) {
  const auto verdicts = watchdog_verdicts(a);
  const logs::HangVerdict* v = logs::culprit_verdict(verdicts);
  if (!v) return false;
  c.ranks = v->culprits;
  c.collective = logs::hang_verdict_collective(*v);
  c.method = "watchdog lines";
  c.why = logs::hang_verdict_title(*v);
  c.evidence = v->evidence;
  return true;
}

bool by_stacks(const AttemptRecord& a, HangCulprit& c) {
  std::map<std::string, std::vector<int>> at;
  std::vector<int> outside, inside;
  std::map<int, StackSummary> of;
  for (const RankRecord* r : live_ranks(a)) {
    if (!r->running || r->stack.empty()) continue;
    StackSummary s = summarize_stack(r->stack);
    if (s.empty()) continue;
    (s.in_collective ? inside : outside).push_back(r->rank);
    at[s.place()].push_back(r->rank);  // lines left out: a spinning loop is caught on either of its lines
    of[r->rank] = s;
  }
  for (const auto& [where, ranks] : at)
    c.evidence.push_back(fmt::format("{} at {}", ranks_phrase(ranks), of[ranks.front()].user_at));
  if (!outside.empty() && !inside.empty()) {
    const StackSummary& s = of[outside.front()];
    c.ranks = outside;
    c.method = "stacks";
    // "at train.py:42 in <module>, in sleep": the innermost frame only when it is not the user's own line.
    const std::string where_at = s.user_at.substr(0, s.user_at.find(" in "));
    const bool same = !where_at.empty() && s.innermost.find(where_at + ")") != std::string::npos;
    c.why =
        fmt::format("{} {} outside any collective (at {}{}) while {} wait{} inside one",
                    ranks_phrase(outside), outside.size() == 1 ? "is" : "are", s.user_at,
                    same ? "" : ", in " + s.innermost, ranks_phrase(inside), inside.size() == 1 ? "s" : "");
    return true;
  }
  if (auto odd = odd_group(at); !odd.empty()) {
    const StackSummary& s = of[odd.front()];
    c.ranks = odd;
    c.method = "stacks";
    c.why = fmt::format("{} waits at {}, where no other rank is ({})", ranks_phrase(odd),
                        s.user_at.empty() ? s.innermost : s.user_at, s.innermost);
    return true;
  }
  return false;
}

bool by_collective_counts(const AttemptRecord& a, HangCulprit& c) {
  const auto live = live_ranks(a);
  int64_t lo = INT64_MAX, hi = -1;
  for (const RankRecord* r : live)
    if (r->collectives >= 0) lo = std::min(lo, r->collectives), hi = std::max(hi, r->collectives);
  if (hi < 0 || lo >= hi) return false;
  for (const RankRecord* r : live)
    if (r->collectives == lo) c.ranks.push_back(r->rank);
  c.fewest = lo;
  c.method = "collective counts";
  c.why = fmt::format("{} {} behind: {} collectives, the others up to {}", ranks_phrase(c.ranks),
                      c.ranks.size() == 1 ? "is" : "are", lo, hi);
  return true;
}

bool by_cpu(const AttemptRecord& a, HangCulprit& c) {
  const auto live = live_ranks(a);
  for (const RankRecord* r : live)
    if (r->cpu_window_s >= 0 && r->silent_s > 0 && r->cpu_window_s < kIdleCpuFraction * r->silent_s)
      c.ranks.push_back(r->rank);
  if (c.ranks.empty()) return false;
  c.method = "cpu";
  c.why = c.ranks.size() == live.size()
              ? "every rank is idle: under 2% CPU while silent, waiting outside NCCL"
              : fmt::format("{} {} idle (under 2% CPU while silent) while the others spin",
                            ranks_phrase(c.ranks), c.ranks.size() == 1 ? "is" : "are");
  return true;
}

}  // namespace

namespace culprit {

// Every node's digest merged, then the cross-rank analysis: the same answer as over all dumps at once. Only
// causes the records can show count ("stuck": everyone issued the same op; "missing_dump": ranks without a
// dump) leave the naming to the other methods.
bool by_flight_recorder(const AttemptRecord& a, HangCulprit& c) {
  const auto analysis = parts::attempt_fr_analysis(a);
  if (!analysis) return false;
  const logs::FrAnalysis& fa = *analysis;
  for (const logs::FrCulprit& k : fa.culprits) {
    if (k.kind == "stuck" || k.kind == "missing_dump" || k.ranks.empty()) continue;
    c.ranks = k.ranks;
    c.why = k.detail;
    c.method = "flight recorder";
    // A rank that never issued the collective did nothing there: the collective the others wait in is named.
    c.collective = k.did.op.empty() ? fmt::format("none: it never issued seq {} of group {} ({})", k.seq,
                                                  k.pg_name, k.pg_desc)
                                    : fmt::format("{} seq {} of group {} ({})", logs::signature_words(k.did),
                                                  k.seq, k.pg_name, k.pg_desc);
    if (k.has_where && !k.where.frames.empty())
      c.evidence.push_back("its stack: " + logs::frames_text(k.where.frames));
    for (const auto& g : fa.groups)
      if (g.has_mismatch || !g.waiting.empty()) {  // only the parts that hold ranks
        std::string parts;
        for (const auto& [word, ranks] :
             {std::pair{"waiting", &g.waiting}, {"behind", &g.behind}, {"ahead", &g.ahead}})
          if (!ranks->empty())
            parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", word, logs::rank_list(*ranks));
        c.evidence.push_back(fmt::format("group {} ({}): {}", g.pg_name, g.pg_desc, parts));
      }
    return true;
  }
  return false;
}

}  // namespace culprit

std::vector<logs::HangVerdict> watchdog_verdicts(const AttemptRecord& a) {
  std::vector<logs::RankLines> lines;
  for (const RankRecord* r : parts::all_ranks(a)) {
    const std::string& path = r->log_path;
    lines.push_back({.rank = r->rank, .lines = &r->tail, .source = path.substr(path.rfind('/') + 1)});
  }
  return logs::hang_verdicts(lines);
}

bool is_stopped_state(const std::string& proc_state) {
  return !proc_state.empty() && (proc_state[0] == 'T' || proc_state[0] == 't');
}

HangCulprit hang_culprit(const AttemptRecord& a) {
  for (auto method : {by_process_state, by_early_exit, by_flight_recorder, by_watchdog_lines, by_identity,
                      by_stacks, by_collective_counts, by_cpu}) {
    HangCulprit c;
    if (method(a, c)) {
      std::sort(c.ranks.begin(), c.ranks.end());
      return c;
    }
  }
  HangCulprit none;
  (void)by_stacks(a, none);  // keep where each rank waits as evidence
  none.ranks.clear();
  return none;
}

}  // namespace dd::launch
