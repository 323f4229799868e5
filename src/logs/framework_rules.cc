// Cross-rank rules over framework output: the PyTorch ProcessGroupNCCL watchdog summary (who timed out on
// what, who is furthest behind) and torchrun's failed-worker summary.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "logs/hang_analysis.h"
#include "logs/log_finding_ids.h"
#include "logs/log_rules.h"

namespace dd::logs {

using report::Finding;
using report::Severity;

namespace {

// Ranks whose `field` equals `v`, comma-separated.
std::string ranks_with(const std::vector<const WatchdogTimeout*>& all, int64_t WatchdogTimeout::*field,
                       int64_t v) {
  std::string who;
  for (const auto* w : all)
    if (w->*field == v) who += (who.empty() ? "" : ", ") + std::to_string(w->rank);
  return who;
}

// The hang analysis's answer (hang_analysis.h): who caused it, in a line of the summary.
bool add_verdict(const LogsResult& r, Finding& f) {
  std::vector<HangVerdict> vs = analyze_hangs(r.watchdogs, {});
  if (vs.empty() || vs.front().culprits.empty()) return false;
  const HangVerdict& v = vs.front();
  const std::string who = rank_commas(v.culprits);
  std::string line;
  if (v.kind == HangKind::desync)
    line = fmt::format("odd one out: rank(s) {} ({} at SeqNum {}, where the others called {})", who,
                       v.culprit_op, v.seq, v.op.empty() ? "another collective" : v.op);
  else if (v.kind == HangKind::ahead)
    line = fmt::format("ahead: rank(s) {} went past SeqNum {} (timed out in SeqNum {})", who, v.seq,
                       v.culprit_seq);
  else if (v.kind == HangKind::late)
    line = fmt::format(
        "late: rank(s) {} (last enqueued {} when the others timed out in SeqNum {}; its own timeout "
        "later, in SeqNum {})",
        who, v.culprit_enqueued, v.seq, v.culprit_seq);
  else
    line = fmt::format("never issued the awaited collective: rank(s) {} (last enqueued {}, others {})", who,
                       v.culprit_enqueued, v.waiters_enqueued);
  f.evidence.insert(f.evidence.begin(), line);
  return true;
}

// The rank with the lowest last completed work is the one the others wait for.
void add_furthest_behind(const std::vector<const WatchdogTimeout*>& all, Finding& f) {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto* w : all)
    if (w->last_completed >= -1 && w->last_enqueued >= 0) {
      lo = std::min(lo, w->last_completed);
      hi = std::max(hi, w->last_completed);
    }
  if (lo == INT64_MAX || lo >= hi) return;
  f.evidence.insert(f.evidence.begin(),
                    fmt::format("furthest behind: rank(s) {} (last completed {}, others up to {})",
                                ranks_with(all, &WatchdogTimeout::last_completed, lo), lo, hi));
}

void watchdog_rule(const LogsResult& r, std::vector<Finding>& out) {
  std::vector<const WatchdogTimeout*> timeouts, all;
  for (const auto& w : r.watchdogs) {
    if (w.dump_only) continue;
    all.push_back(&w);
    if (!w.op.empty()) timeouts.push_back(&w);
  }
  if (timeouts.empty()) return;
  const auto* w0 = timeouts.front();
  std::set<int> ranks;  // a rank times out again after a restart, or in another process group
  for (const auto* w : timeouts) ranks.insert(w->rank);
  Finding f = logs_finding(
      ids::kWatchdogSummary, Severity::fail,
      fmt::format("{} rank(s) hit the ProcessGroupNCCL watchdog{}: {} SeqNum={} after {} ms", ranks.size(),
                  ranks.size() == timeouts.size() ? "" : fmt::format(" ({} timeouts)", timeouts.size()),
                  w0->op, w0->seq, w0->ran_ms),
      "The timeouts are the witnesses: the rank that caused them is the odd one out at that SeqNum, a rank "
      "ahead of the others, one whose own timeout came later, or one that never issued the collective (the "
      "logs.hang.* finding names it). Raising the timeout only helps for slow I/O.");
  for (const auto* w : all)
    if (f.evidence.size() < 16)
      f.evidence.push_back(
          fmt::format("{} rank {}: {}{}last enqueued {}, last completed {}", w->at.str(), w->rank,
                      w->op.empty() ? "" : w->op + " SeqNum=" + std::to_string(w->seq) + " ",
                      w->timeout_ms > 0 ? "timeout " + std::to_string(w->timeout_ms) + " ms, " : "",
                      w->last_enqueued, w->last_completed));
  if (!add_verdict(r, f)) add_furthest_behind(all, f);
  out.push_back(std::move(f));
}

void torchrun_rule(const LogsResult& r, std::vector<Finding>& out) {
  if (r.child_failures.empty()) return;
  // The "Root Cause (first observed failure)" entry when torchrun marked one, else the first listed.
  auto root = std::find_if(r.child_failures.begin(), r.child_failures.end(),
                           [](const ChildFailure& c) { return c.root_cause; });
  const bool marked = root != r.child_failures.end();
  const auto& c0 = marked ? *root : r.child_failures.front();
  Finding f = logs_finding(
      ids::kTorchrunFailures, Severity::fail,
      fmt::format("torchrun reports {} failed worker(s); {}: rank {} (local_rank {}) exitcode {}",
                  r.child_failures.size(), marked ? "root cause" : "first", c0.rank, c0.local_rank,
                  c0.exitcode),
      "The root-cause rank's own output (its traceback, its first NCCL WARN) says why it exited; the "
      "others were usually stopped by torchrun after it. Negative exit codes are signals (-9 SIGKILL: "
      "often the OOM killer; -6 SIGABRT: NCCL/watchdog abort).");
  for (const auto& c : r.child_failures)
    if (f.evidence.size() < 16)
      f.evidence.push_back(fmt::format("{}: host {} rank {} local_rank {} exitcode {} pid {}{}", c.at.str(),
                                       c.host, c.rank, c.local_rank, c.exitcode, c.pid,
                                       c.root_cause ? " (root cause)" : ""));
  f.rank = r.child_failures.size() == 1 ? c0.rank : -1;
  out.push_back(std::move(f));
}

void framework_rules(const LogsResult& r, std::vector<Finding>& out) {
  watchdog_rule(r, out);
  torchrun_rule(r, out);
}

}  // namespace

LogRule framework_log_rule() {
  return {
      .name = "framework",
      .fn = framework_rules,
      .docs =
          {
              {ids::kWatchdogSummary, "ProcessGroupNCCL watchdog timeouts, per rank",
               "Collects the watchdog lines of all ranks: op, SeqNum, timeout, last enqueued and completed "
               "work. The rank that caused them is named by the logs.hang.* finding; the summary itself is a "
               "consequence."},
              {ids::kTorchrunFailures, "torchrun's ChildFailedError summary",
               "Rank, local rank, exit code, pid and host of each failed worker, from the summary torchrun "
               "prints."},
          },
  };
}

}  // namespace dd::logs
