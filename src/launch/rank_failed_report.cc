// The findings of a worker failure: launch.rank.failed for the root-cause rank (how it ended, command, log,
// traceback, last lines, a fix), the catalogue's diagnosis of its log, and launch.rank.also_failed for the
// ranks that died by themselves afterwards.
#include <fmt/format.h>

#include <csignal>

#include "common/redact.h"
#include "common/signal_name.h"
#include "launch/failure_report_ids.h"
#include "launch/report_parts.h"
#include "logs/oom_cause.h"
#include "logs/python_traceback.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

namespace {

constexpr size_t kShownTailLines = 20;

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> traceback_lines(const std::string& tb) {
  std::vector<std::string> out;
  for (size_t p = 0; p < tb.size();) {
    size_t nl = tb.find('\n', p);
    if (nl == std::string::npos) nl = tb.size();
    out.push_back(tb.substr(p, nl - p));
    p = nl + 1;
  }
  return out;
}

// Whether a log line is already shown as part of the traceback: the same text, or the same text after a rank
// prefix ("[rank1]: ", "[default0]:").
bool in_traceback(const std::string& line, const std::vector<std::string>& tb) {
  const std::string t = trimmed(line);
  if (t.empty()) return false;
  for (const auto& l : tb) {
    const std::string u = trimmed(l);
    if (u.empty() || t.size() < u.size() || t.compare(t.size() - u.size(), u.size(), u) != 0) continue;
    const std::string before = trimmed(t.substr(0, t.size() - u.size()));
    if (before.empty() || (before.front() == '[' && before.back() == ':')) return true;
  }
  return false;
}

// What the way it ended suggests when the catalogue knows nothing better.
std::string end_hint(const RankRecord& r, const std::string& host) {
  const std::string on = host.empty() ? "that node" : host;
  if (r.signal == SIGKILL || (r.signal == 0 && r.exit_code == 128 + SIGKILL))
    return fmt::format(
        " SIGKILL is most often the kernel's OOM killer: look for \"Out of memory: Killed process {}\" in "
        "`dmesg` or `journalctl -k` on {}; else the scheduler or a person killed it.",
        r.pid, on);
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE})
    if (r.signal == sig)
      return " A native crash (segfault, bus error, abort) happens below Python: run it again with "
             "PYTHONFAULTHANDLER=1 for the Python stack at the crash, and check the CUDA, NCCL and extension "
             "builds.";
  if (r.signal == 0 && r.exit_code > 128 && r.exit_code < 160)
    return fmt::format(" Status {} is what a shell reports for a child killed by {}.", r.exit_code,
                       signal_name(r.exit_code - 128));
  return "";
}

// "the first rank to fail, 3.00 s after the start; 2 more failed after it (launch.rank.also_failed)".
std::string order_text(const AttemptRecord& a, const RankRecord& root, size_t others_failed) {
  std::string s = "the first rank to fail";
  if (root.end_s >= 0) s += fmt::format(", {:.2f} s after the start", root.end_s);
  size_t stopped = 0;
  for (const RankRecord* r : all_ranks(a)) stopped += r->stopped_by_us;
  if (others_failed > 0)
    s += fmt::format("; {} more failed after it (launch.rank.also_failed)", others_failed);
  else if (stopped > 0)
    s += "; launch stopped the others";
  return s;
}

Finding root_finding(const AttemptRecord& a, const RankRecord& root, size_t others_failed) {
  const std::string exception = logs::traceback_exception(root.traceback);
  Finding f{.id = ids::kRankFailed,
            .severity = Severity::fail,
            .node = host_of(a, root.node_rank),
            .rank = root.rank};
  f.title = fmt::format("rank {} (local rank {}) on {} {}", root.rank, root.local_rank,
                        node_label(a, root.node_rank), end_text(root));
  if (!exception.empty())
    f.title += ": " + redact_text(exception.size() > 160 ? exception.substr(0, 157) + "..." : exception);
  f.evidence.push_back(order_text(a, root, others_failed));
  if (!root.ending_state.empty())
    f.evidence.push_back(fmt::format(
        "seen in /proc as it ended (state {}): its process was not gone yet (a CUDA process's threads can "
        "take seconds to exit while the driver frees its GPU memory); launch stopped the others without "
        "waiting",
        root.ending_state));
  if (!a.command.empty()) f.evidence.push_back("command: " + command_text(a.command));
  const std::string log = root.log_path.empty() ? "(no log file)" : root.log_path;
  f.evidence.push_back(fmt::format("log: {}{}", log, f.node.empty() ? "" : " on " + f.node));
  add_log_evidence(f.evidence, root);
  const auto& diag = a.stop.diagnosis;
  if (!diag.empty() && !diag.front().fix.empty())
    f.fix = fmt::format("{} ({}; the full log: {})", diag.front().fix, diag.front().id, log);
  else
    f.fix = fmt::format("Read the full log at {}{}.{}", log, f.node.empty() ? "" : " on " + f.node,
                        exception.empty() ? ""
                                          : " The traceback shows where it raised " +
                                                exception.substr(0, exception.find(':')) + ".");
  if (diag.empty()) f.fix += end_hint(root, f.node);
  if (!root.start_error.empty())  // its exec failed: nothing of the job ran, the log holds only that
    f.fix = fmt::format(
        "Check the command after --: {} on {} (a typo, or a program not installed there; "
        "`command -v NAME` on that node shows what the PATH finds).",
        root.start_error, f.node.empty() ? node_label(a, root.node_rank) : f.node);
  return f;
}

std::optional<Finding> also_failed_finding(const AttemptRecord& a, const RankRecord& root) {
  std::vector<int> ranks;
  Finding f{.id = "launch.rank.also_failed", .severity = Severity::warn};
  for (const RankRecord* r : all_ranks(a)) {
    if (!r->failed() || r->rank == root.rank) continue;
    ranks.push_back(r->rank);
    std::string when;
    if (r->end_wall_ms > 0 && root.end_wall_ms > 0)
      when =
          fmt::format(", {:+.2f} s after rank {}", (r->end_wall_ms - root.end_wall_ms) / 1000.0, root.rank);
    else if (r->end_s >= 0 && root.end_s >= 0)
      when = fmt::format(", {:+.2f} s after rank {}", r->end_s - root.end_s, root.rank);
    const std::string exc = logs::traceback_exception(r->traceback);
    f.evidence.push_back(fmt::format("rank {} (local rank {}) on {} {}{}{}; log: {}", r->rank, r->local_rank,
                                     node_label(a, r->node_rank), end_text(*r), when,
                                     exc.empty() ? "" : ": " + redact_text(exc), r->log_path));
  }
  if (ranks.empty()) return std::nullopt;
  f.title = fmt::format("{} more rank{} failed on {} own after rank {}: {}", ranks.size(),
                        ranks.size() == 1 ? "" : "s", ranks.size() == 1 ? "its" : "their", root.rank,
                        rank_ranges(ranks));
  f.fix = fmt::format(
      "Fix rank {} first: ranks that fail after a peer died usually report the broken connection (NCCL "
      "\"remote process exited\", Gloo \"Connection reset by peer\", a store timeout) rather than a cause of "
      "their own. Look at their logs only if they still fail once rank {} is fixed.",
      root.rank, root.rank);
  return f;
}

}  // namespace

void add_log_evidence(std::vector<std::string>& ev, const RankRecord& r) {
  const auto tb = traceback_lines(r.traceback);
  if (!tb.empty()) {
    ev.push_back("Python traceback:");
    for (const auto& l : tb) ev.push_back("| " + redact_text(l));
  }
  std::vector<std::string> shown;
  for (auto it = r.tail.rbegin(); it != r.tail.rend() && shown.size() < kShownTailLines; ++it)
    if (!in_traceback(*it, tb)) shown.insert(shown.begin(), shown_line(*it));
  if (r.tail.empty()) {
    ev.push_back("its log is empty: it printed nothing before it ended");
  } else if (!shown.empty()) {
    ev.push_back(fmt::format("last lines of its log{}:", tb.empty() ? "" : " (besides the traceback)"));
    for (const auto& l : shown) ev.push_back("| " + l);
  }
}

std::vector<Finding> rank_failed_findings(const AttemptRecord& a) {
  const RankRecord root = root_record(a);
  size_t others = 0;
  for (const RankRecord* r : all_ranks(a)) others += r->failed() && r->rank != root.rank;
  std::vector<Finding> out = {root_finding(a, root, others)};
  // An out-of-memory that another process caused: PyTorch's message names it; the headline says so.
  std::string held_by;
  if (auto h = logs::oom_other_holder(root.traceback.empty() ? last_line(root) : root.traceback)) {
    std::vector<std::pair<int64_t, int>> job_pids;
    for (const RankRecord* r : all_ranks(a)) job_pids.emplace_back(r->pid, r->rank);
    held_by = logs::oom_holder_text(*h, job_pids);
    out.front().evidence.insert(out.front().evidence.begin(), out.front().title);
    out.front().title = fmt::format("rank {} ran out of GPU memory: {}", root.rank, held_by);
  }
  for (Finding d : a.stop.diagnosis) {
    if (d.rank < 0) d.rank = root.rank;
    if (d.node.empty()) d.node = host_of(a, root.node_rank);
    if (d.id == "cuda.out_of_memory" && !held_by.empty() && d.title.find(held_by) == std::string::npos)
      d.title += ": " + held_by;
    out.push_back(std::move(d));
  }
  if (auto f = also_failed_finding(a, root)) out.push_back(std::move(*f));
  return out;
}

}  // namespace dd::launch::parts
