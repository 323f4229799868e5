// The launch.hang finding: the culprit (hang_culprit.h: process state, Flight Recorder, watchdog lines,
// stacks, collective counts, CPU), then each rank's /proc state, wait channel, CPU in the silent window,
// silence, last line, collective count (behind/ahead) and stack.
#include <fmt/format.h>

#include <algorithm>

#include "common/redact.h"
#include "launch/hang_culprit.h"
#include "launch/report_parts.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

namespace {

constexpr size_t kShownStackLines = 40;

std::string rank_state_line(const AttemptRecord& a, const RankRecord& r, const HangCulprit& stuck) {
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
  ev.push_back(fmt::format(
      "rank {} stack ({}):", r.rank,
      r.stack_source == "faulthandler" ? "faulthandler, through launch's stack hook" : "py-spy dump"));
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

}  // namespace

std::string hang_summary(const AttemptRecord& a) {
  const HangCulprit s = hang_culprit(a);
  if (s.ranks.empty()) return "no rank stands out";
  if (!s.collective.empty()) return fmt::format("{} caused it, {}", ranks_phrase(s.ranks), s.collective);
  if (s.method == "process state")
    return ranks_phrase(s.ranks) + (s.ranks.size() == 1 ? " is stopped (state T)" : " are stopped (state T)");
  return ranks_phrase(s.ranks) + (s.ranks.size() == 1 ? " looks stuck" : " look stuck");
}

Finding hang_finding(const AttemptRecord& a) {
  const HangCulprit stuck = hang_culprit(a);
  double silent = 0;
  for (const RankRecord* r : all_ranks(a))
    if (r->running) silent = std::max(silent, r->silent_s);
  Finding f{.id = "launch.hang", .severity = Severity::fail};
  const std::string how =
      !a.stop.trigger.empty()
          ? fmt::format("rank {} printed: \"{}\"", a.stop.trigger_rank, shown_line(a.stop.trigger))
          : a.stop.detail;
  if (stuck.ranks.empty())
    f.title = fmt::format("the job hung: every rank alive but silent for {:.0f} s; none stands out", silent);
  else
    f.title = "the job hung: " + stuck.why;
  if (!stuck.method.empty()) f.evidence.push_back("culprit found by: " + stuck.method);
  for (const auto& e : stuck.evidence) f.evidence.push_back(e);
  if (stuck.ranks.size() == 1) f.rank = stuck.ranks.front();
  bool no_stacks = false;
  for (const RankRecord* r : all_ranks(a)) {
    if (f.rank == r->rank) f.node = host_of(a, r->node_rank);
    f.evidence.push_back(rank_state_line(a, *r, stuck));
    add_stack(f.evidence, *r);
    no_stacks |= r->running && r->stack.empty();
  }
  if (!how.empty()) f.evidence.push_back("declared hung: " + how);
  add_fr_dump_evidence(a, f.evidence);
  if (stuck.method == "process state") {
    f.fix = fmt::format(
        "{} {} stopped: something sent SIGSTOP or SIGTSTP (Ctrl-Z in its terminal, a debugger, a scheduler's "
        "suspend, a cgroup freezer) and nothing continued it. `kill -CONT PID` resumes a stopped process: "
        "find what stopped it before the next run.",
        ranks_phrase(stuck.ranks), stuck.ranks.size() == 1 ? "is" : "are");
    return f;
  }
  f.fix = fmt::format(
      "Start with {}: its stack shows where it is. A rank that called another collective (or the same one "
      "with other sizes, or on another process group) took another code path (a data-dependent branch, "
      "uneven batches, a rank-dependent condition); a rank outside any collective is late or stuck in your "
      "code (I/O, a lock, a queue, a long loop) while the others wait for it inside NCCL. The Flight "
      "Recorder dumps hold each rank's last collectives{}.",
      stuck.ranks.empty() ? std::string("the ranks' last lines") : ranks_phrase(stuck.ranks),
      no_stacks ? "; ranks without a stack did not run Python with launch's stack hook (pip install py-spy "
                  "for another way)"
                : "");
  return f;
}

}  // namespace dd::launch::parts
