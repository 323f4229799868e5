// The launch.hang finding: each rank's /proc state, wait channel, CPU in the silent window, silence, last
// line, collective count (behind/ahead) and stack, and which ranks look stuck: the ones behind in
// collectives, else the idle ones (under 2% CPU while silent; ranks waiting in NCCL spin and use CPU).
#include <fmt/format.h>

#include <algorithm>

#include "common/redact.h"
#include "launch/report_parts.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

namespace {

constexpr double kIdleCpuFraction = 0.02;
constexpr size_t kShownStackLines = 40;

struct StuckRanks {
  std::vector<int> ranks;
  std::string why;      // "behind: 1199 collectives, the others 1200", "idle: ..."
  int64_t fewest = -1;  // lowest collective count when counts differ, else -1
};

std::vector<const RankRecord*> live_ranks(const AttemptRecord& a) {
  std::vector<const RankRecord*> live;
  for (const RankRecord* r : all_ranks(a))
    if (r->running) live.push_back(r);
  return live.empty() ? all_ranks(a) : live;
}

bool is_idle(const RankRecord& r) {
  return r.cpu_window_s >= 0 && r.silent_s > 0 && r.cpu_window_s < kIdleCpuFraction * r.silent_s;
}

StuckRanks find_stuck(const AttemptRecord& a) {
  StuckRanks s;
  const auto live = live_ranks(a);
  int64_t lo = INT64_MAX, hi = -1;
  for (const RankRecord* r : live)
    if (r->collectives >= 0) lo = std::min(lo, r->collectives), hi = std::max(hi, r->collectives);
  if (hi >= 0 && lo < hi) {
    for (const RankRecord* r : live)
      if (r->collectives == lo) s.ranks.push_back(r->rank);
    s.fewest = lo;
    s.why = fmt::format("behind: {} collectives, the others up to {}", lo, hi);
    return s;
  }
  for (const RankRecord* r : live)
    if (is_idle(*r)) s.ranks.push_back(r->rank);
  if (!s.ranks.empty())
    s.why = s.ranks.size() == live.size() ? "every rank idle: under 2% CPU while silent, waiting outside NCCL"
                                          : "idle: under 2% CPU while silent, while the others spin";
  return s;
}

std::string rank_state_line(const AttemptRecord& a, const RankRecord& r, const StuckRanks& stuck) {
  std::string s =
      fmt::format("rank {} (local rank {}) on {}: ", r.rank, r.local_rank, node_label(a, r.node_rank));
  if (!r.running) return s + end_text(r);
  s += "state " + (r.proc_state.empty() ? std::string("unknown") : r.proc_state);
  if (!r.wchan.empty() && r.wchan != "0") s += ", waiting in " + r.wchan;  // "0": running, no wait
  if (r.cpu_window_s >= 0)
    s += fmt::format(", {:.2f} s CPU in the last {:.1f} s", r.cpu_window_s, std::max(r.silent_s, 0.0));
  if (r.cpu_s >= 0) s += fmt::format(" ({:.2f} s in all)", r.cpu_s);
  if (r.silent_s >= 0) s += fmt::format(", silent {:.1f} s", r.silent_s);
  if (r.collectives >= 0)
    s += fmt::format(", {} collectives{}", r.collectives,
                     stuck.fewest < 0                ? ""
                     : r.collectives == stuck.fewest ? " (behind)"
                                                     : " (ahead)");
  const std::string last = last_line(r);
  s += last.empty() ? "; printed nothing" : "; last line: \"" + last + "\"";
  return s;
}

void add_stack(std::vector<std::string>& ev, const RankRecord& r) {
  if (!r.running) return;
  if (r.stack.empty()) {
    ev.push_back(fmt::format("rank {} stack: not taken{}", r.rank,
                             r.stack_error.empty() ? "" : " (" + r.stack_error + ")"));
    return;
  }
  ev.push_back(fmt::format("rank {} stack (py-spy dump):", r.rank));
  size_t shown = 0, total = 0;
  for (size_t p = 0; p < r.stack.size(); ++total) {
    size_t nl = r.stack.find('\n', p);
    if (nl == std::string::npos) nl = r.stack.size();
    if (shown < kShownStackLines) {
      ev.push_back("| " + redact_text(r.stack.substr(p, nl - p)));
      ++shown;
    }
    p = nl + 1;
  }
  if (total > shown) ev.push_back(fmt::format("| ... {} more lines", total - shown));
}

std::string ranks_phrase(const std::vector<int>& ranks) {
  return fmt::format("rank{} {}", ranks.size() == 1 ? "" : "s", rank_ranges(ranks));
}

}  // namespace

std::string hang_summary(const AttemptRecord& a) {
  const StuckRanks s = find_stuck(a);
  if (s.ranks.empty()) return "no rank stands out";
  return ranks_phrase(s.ranks) + (s.ranks.size() == 1 ? " looks stuck" : " look stuck");
}

Finding hang_finding(const AttemptRecord& a) {
  const StuckRanks stuck = find_stuck(a);
  const auto live = live_ranks(a);
  double silent = 0;
  for (const RankRecord* r : live) silent = std::max(silent, r->silent_s);
  Finding f{.id = "launch.hang", .severity = Severity::fail};
  if (stuck.ranks.empty())
    f.title = fmt::format("the job hung: every rank alive but silent for {:.0f} s; none stands out", silent);
  else
    f.title = fmt::format("the job hung: {} ({})", hang_summary(a), stuck.why);
  if (stuck.ranks.size() == 1) f.rank = stuck.ranks.front();
  bool no_stacks = false;
  for (const RankRecord* r : all_ranks(a)) {
    if (f.rank == r->rank) f.node = host_of(a, r->node_rank);
    f.evidence.push_back(rank_state_line(a, *r, stuck));
    add_stack(f.evidence, *r);
    no_stacks |= r->running && r->stack.empty();
  }
  if (!a.stop.detail.empty()) f.evidence.push_back("declared hung: " + a.stop.detail);
  f.fix = fmt::format(
      "Start with {}: its last line and stack show where it waits. A rank behind in collectives skipped "
      "or is late to one (a data-dependent branch, uneven batches, an exception caught and swallowed) while "
      "the others wait for it inside NCCL; an idle rank (no CPU) waits on something outside NCCL (I/O, a "
      "lock, a queue). Run again with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL for collective counts{}.",
      stuck.ranks.empty() ? std::string("the ranks' last lines") : ranks_phrase(stuck.ranks),
      no_stacks ? " and with py-spy on PATH (pip install py-spy) for stacks" : "");
  return f;
}

}  // namespace dd::launch::parts
