// The launch.hang finding: the culprit (hang_culprit.h: process state, Flight Recorder, watchdog lines,
// stacks, collective counts, CPU), then each rank's /proc state, wait channel, CPU in the silent window,
// silence, last line, collective count (behind/ahead) and stack.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/redact.h"
#include "launch/hang_culprit.h"
#include "launch/python_stack.h"
#include "launch/report_parts.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

namespace {

constexpr size_t kShownStackLines = 40;  // per rank, in the details
constexpr size_t kBriefFrames = 6;       // per stack, in the evidence
constexpr size_t kBriefEvidence = 4;     // the culprit method's own lines, in the evidence

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

// The ranks that only waited, in one line: their ranks, their state in common, and the longest silence.
std::string waiting_line(const std::vector<const RankRecord*>& waiting) {
  std::set<std::string> states;
  double silent = 0, cpu = 0;
  for (const RankRecord* r : waiting) {
    states.insert(r->proc_state.empty() ? std::string("unknown") : r->proc_state);
    silent = std::max(silent, r->silent_s);
    cpu = std::max(cpu, r->cpu_window_s);
  }
  std::vector<int> ranks;
  for (const RankRecord* r : waiting) ranks.push_back(r->rank);
  std::string states_text;
  for (const auto& s : states) states_text += (states_text.empty() ? "" : " / ") + s;
  return fmt::format("{} only wait{}: state {}, silent up to {:.0f} s, at most {:.2f} s CPU meanwhile",
                     ranks_phrase(ranks), ranks.size() == 1 ? "s" : "", states_text, silent,
                     std::max(cpu, 0.0));
}

}  // namespace

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

// The rank's own thread's Python frames, innermost first, without the import machinery; nothing when it
// has no Python frame (threads that run only C++ are left out).
void add_brief_stack(std::vector<std::string>& ev, const RankRecord& r, const char* role) {
  if (!r.running || r.stack.empty()) return;
  const StackSummary st = summarize_stack(r.stack);
  std::vector<const StackFrame*> frames;
  for (const StackFrame& f : st.frames)
    if (f.file.rfind("<frozen", 0) != 0) frames.push_back(&f);
  if (frames.empty()) return;
  ev.push_back(fmt::format("rank {} ({}) stack, innermost first:", r.rank, role));
  for (size_t i = 0; i < frames.size() && i < kBriefFrames; ++i)
    ev.push_back(
        fmt::format("| {}:{} in {}", redact_text(frames[i]->file), frames[i]->line, frames[i]->func));
  if (frames.size() > kBriefFrames)
    ev.push_back(fmt::format("| ... {} outer frames", frames.size() - kBriefFrames));
}

std::string hang_summary(const AttemptRecord& a) {
  const HangCulprit s = hang_culprit(a);
  if (s.ranks.empty()) return "no rank stands out";
  if (!s.collective.empty()) return fmt::format("{} caused it, {}", ranks_phrase(s.ranks), s.collective);
  if (s.method == "process state")
    return ranks_phrase(s.ranks) + (s.ranks.size() == 1 ? " is stopped (state T)" : " are stopped (state T)");
  return ranks_phrase(s.ranks) + (s.ranks.size() == 1 ? " looks stuck" : " look stuck");
}

namespace {

// "Flight Recorder dumps of 4 ranks in DIR/ (`distdoctor logs` reads them)", or "" when none was written.
std::string fr_dumps_line(const AttemptRecord& a) {
  std::string dump_dir;
  size_t dumps = 0;
  for (const RankRecord* r : all_ranks(a))
    if (!r->fr_dump.empty()) ++dumps, dump_dir = r->fr_dump.substr(0, r->fr_dump.rfind('/') + 1);
  if (dumps == 0) return "";
  return fmt::format("Flight Recorder dumps of {} rank{} in {} (`distdoctor logs` reads them)", dumps,
                     dumps == 1 ? "" : "s", dump_dir.empty() ? "." : dump_dir);
}

// The ranks' states and stacks (details), who waits, the culprit's and a waiting rank's stack (evidence);
// true when a running rank left no stack.
bool add_rank_evidence(const AttemptRecord& a, const HangCulprit& stuck, Finding& f) {
  std::vector<const RankRecord*> waiting;
  const RankRecord* culprit = nullptr;
  bool no_stacks = false;
  for (const RankRecord* r : all_ranks(a)) {
    const bool is_culprit = std::count(stuck.ranks.begin(), stuck.ranks.end(), r->rank) > 0;
    if (f.rank == r->rank) f.node = host_of(a, r->node_rank);
    if (is_culprit && !culprit) culprit = r;
    if (!is_culprit && r->running) waiting.push_back(r);
    f.details.push_back(rank_state_line(a, *r, stuck));
    add_stack(f.details, *r);
    no_stacks |= r->running && r->stack.empty();
  }
  if (!waiting.empty()) f.evidence.push_back(waiting_line(waiting));
  if (culprit) add_brief_stack(f.evidence, *culprit, "the culprit");
  for (const RankRecord* w : waiting)
    if (!w->stack.empty()) {
      add_brief_stack(f.evidence, *w, culprit ? "waiting" : "one of them");
      break;
    }
  return no_stacks;
}

// What to do, by how the culprit was found.
std::string hang_fix(const HangCulprit& stuck, bool no_stacks) {
  if (stuck.method == "exit") return left_early_fix(stuck.ranks);
  if (stuck.method == "identity")
    return fmt::format(
        "Run {} with the same NCCL library and NCCL settings as the other ranks (see launch.rank.differs): "
        "look for a wrapper script, an LD_PRELOAD or a module or conda environment that only some ranks "
        "load.",
        ranks_phrase(stuck.ranks));
  if (stuck.method == "process state")
    return fmt::format(
        "{} {} stopped: something sent SIGSTOP or SIGTSTP (Ctrl-Z in its terminal, a debugger, a scheduler's "
        "suspend, a cgroup freezer) and nothing continued it. `kill -CONT PID` resumes a stopped process: "
        "find "
        "what stopped it before the next run.",
        ranks_phrase(stuck.ranks), stuck.ranks.size() == 1 ? "is" : "are");
  return fmt::format(
      "Start with {}: its stack shows where it is. A rank that called another collective (or the same one "
      "with other sizes, or on another process group) took another code path (a data-dependent branch, "
      "uneven batches, a rank-dependent condition); a rank outside any collective is late or stuck in your "
      "code (I/O, a lock, a queue, a long loop) while the others wait for it inside NCCL. The Flight "
      "Recorder dumps hold each rank's last collectives{}.",
      stuck.ranks.empty() ? std::string("the ranks' last lines") : ranks_phrase(stuck.ranks),
      no_stacks ? "; ranks without a stack did not run Python with launch's stack hook (pip install py-spy "
                  "for another way)"
                : "");
}

}  // namespace

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
  if (!stuck.ranks.empty())
    f.evidence.push_back(fmt::format("culprit: {} (found by: {})", ranks_phrase(stuck.ranks), stuck.method));
  if (!stuck.collective.empty()) f.evidence.push_back("collective: " + stuck.collective);
  for (size_t i = 0; i < stuck.evidence.size(); ++i)
    (i < kBriefEvidence ? f.evidence : f.details).push_back(stuck.evidence[i]);
  if (stuck.ranks.size() == 1) f.rank = stuck.ranks.front();
  const bool no_stacks = add_rank_evidence(a, stuck, f);
  if (!how.empty()) f.evidence.push_back("declared hung: " + how);
  add_fr_dump_evidence(a, f.details);
  if (std::string dumps = fr_dumps_line(a); !dumps.empty()) f.evidence.push_back(dumps);
  f.fix = hang_fix(stuck, no_stacks);
  return f;
}

}  // namespace dd::launch::parts
