// The launch report: findings for the last attempt's outcome (a failed rank, a hang, a lost node or master,
// an interrupt, or success), the ranks launch stopped, the env that differs across nodes, silent nodes, and
// one line per earlier attempt; and the launcher's exit code.
#include "launch/failure_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "common/signal_name.h"
#include "launch/report_parts.h"
#include "logs/finding_fold.h"

namespace dd::launch {

using report::Finding;
using report::Severity;

namespace {

// The signal named in an interrupt's detail ("SIGINT", "received SIGTERM", "signal 15"); SIGINT when none is.
int interrupt_signal(const std::string& detail) {
  for (size_t p = detail.find("SIG"); p != std::string::npos; p = detail.find("SIG", p + 3)) {
    size_t e = p + 3;
    while (e < detail.size() && std::isupper(static_cast<unsigned char>(detail[e]))) ++e;
    if (const int s = signal_number(std::string_view(detail).substr(p, e - p))) return s;
  }
  if (const size_t p = detail.find("signal "); p != std::string::npos) {
    const int s = std::atoi(detail.c_str() + p + 7);
    if (s > 0 && s < 65) return s;
  }
  return SIGINT;
}

// "rank 2 exited with status 7", "the job hung (rank 1 looks stuck)", ... for attempt lines.
std::string outcome_text(const AttemptRecord& a) {
  switch (a.stop.cause) {
    case StopCause::none:
      return "every worker exited 0";
    case StopCause::worker_failed: {
      const RankRecord root = parts::root_record(a);
      return fmt::format("rank {} {}", root.rank, parts::end_text(root));
    }
    case StopCause::hang:
      return "the job hung (" + parts::hang_summary(a) + ")";
    case StopCause::interrupted:
      return "interrupted" + (a.stop.detail.empty() ? "" : " by " + a.stop.detail);
    case StopCause::node_lost:
      return "a node was lost" + (a.stop.detail.empty() ? "" : " (" + a.stop.detail + ")");
    case StopCause::master_lost:
      return "the master was lost" + (a.stop.detail.empty() ? "" : " (" + a.stop.detail + ")");
    case StopCause::scheduler_failed:
      return "MindSpore's scheduler " + parts::end_text(a.stop.root);
    case StopCause::cannot_start:
      return "the workers could not be started (" + a.stop.detail + ")";
  }
  return "";
}

Finding attempt_finding(const AttemptRecord& a) {
  return Finding{
      .id = "launch.attempt.failed",
      .severity = Severity::info,
      .title = fmt::format("attempt {}: {} after {:.1f} s", a.attempt, outcome_text(a), a.duration_s)};
}

Finding job_ok_finding(const AttemptRecord& a) {
  size_t workers = 0;
  for (const auto& n : a.nodes) workers += n.ranks.size();
  return Finding{.id = "launch.job.ok",
                 .severity = Severity::ok,
                 .title = fmt::format("all {} workers on {} node{} exited 0 in {:.1f} s", workers,
                                      a.nodes.size(), a.nodes.size() == 1 ? "" : "s", a.duration_s)};
}

// launch.rank.stopped: the ranks launch ended itself, as ranges per node.
std::optional<Finding> stopped_finding(const AttemptRecord& a) {
  std::string per_node;
  size_t count = 0;
  for (const auto& n : a.nodes) {
    std::vector<int> ranks;
    for (const auto& r : n.ranks)
      if (r.stopped_by_us) ranks.push_back(r.rank);
    if (ranks.empty()) continue;
    count += ranks.size();
    per_node += fmt::format("{}{}: {} {}", per_node.empty() ? "" : "; ", parts::node_label(a, n.node_rank),
                            ranks.size() == 1 ? "rank" : "ranks", parts::rank_ranges(ranks));
  }
  if (count == 0) return std::nullopt;
  const std::string after = a.stop.cause == StopCause::worker_failed
                                ? fmt::format(" after rank {} failed", parts::root_record(a).rank)
                            : a.stop.cause == StopCause::hang ? std::string(" after the hang")
                            : a.stop.cause == StopCause::scheduler_failed
                                ? std::string(" after MindSpore's scheduler failed")
                                : std::string();
  Finding f{.id = "launch.rank.stopped", .severity = Severity::info};
  // What stop_workers sends first: the user's SIGINT passed on after a Ctrl-C, else SIGTERM.
  const bool sigint = a.stop.cause == StopCause::interrupted && interrupt_signal(a.stop.detail) == SIGINT;
  f.title = fmt::format("launch stopped {} rank{}{} ({}, then SIGKILL after the grace period): {}", count,
                        count == 1 ? "" : "s", after, sigint ? "SIGINT" : "SIGTERM", per_node);
  if (a.stop_latency_s >= 0)
    f.evidence.push_back(fmt::format("stopped within {:.2f} s on this node", a.stop_latency_s));
  return f;
}

Finding lost_finding(const AttemptRecord& a) {
  const bool master = a.stop.cause == StopCause::master_lost;
  Finding f{.id = master ? "launch.master.lost" : "launch.node.lost", .severity = Severity::fail};
  std::string who = master ? "the master (node 0)" : "a node";
  if (!master && !a.silent_nodes.empty()) {
    who = parts::node_label(a, a.silent_nodes.front());
    for (size_t i = 1; i < a.silent_nodes.size(); ++i) who += ", " + parts::node_label(a, a.silent_nodes[i]);
  }
  f.title = fmt::format("{} stopped answering{}", who, a.stop.detail.empty() ? "" : ": " + a.stop.detail);
  // A heartbeat loss names the lost node in node_rank (the title names it): no "noticed by" it then.
  const bool names_lost = !master && std::find(a.silent_nodes.begin(), a.silent_nodes.end(),
                                               a.stop.node_rank) != a.silent_nodes.end();
  if (a.stop.node_rank >= 0 && !names_lost)
    f.evidence.push_back("noticed by " + parts::node_label(a, a.stop.node_rank));
  if (!a.stop.detail.empty()) f.evidence.push_back("detail: " + a.stop.detail);
  f.fix = fmt::format(
      "Look at {}: the machine may have rebooted or lost its network, or its `distdoctor launch` was killed "
      "(OOM killer, the scheduler, a person). Its workers' logs stay on that node under the log directory. "
      "The other nodes stopped their workers{}.",
      master ? "node 0" : "that node",
      master ? " because without the master no node can coordinate the job" : "");
  return f;
}

// launch.logs.cannot_write: a node could not create its workers' log files (a full inode table, no space, a
// read-only or foreign folder): nothing was started there, and the other nodes stopped theirs.
Finding cannot_start_finding(const AttemptRecord& a) {
  Finding f{.id = "launch.logs.cannot_write", .severity = Severity::fail};
  f.title =
      fmt::format("{} could not create its workers' log files: {}",
                  a.stop.node_rank >= 0 ? parts::node_label(a, a.stop.node_rank) : "a node", a.stop.detail);
  f.fix =
      "Free inodes or space on that filesystem (many small files use up its inodes: `df -i` shows them), or "
      "give --log-dir a folder with room that this user can write. No worker was started on that node; the "
      "other nodes stopped theirs.";
  return f;
}

Finding interrupted_finding(const AttemptRecord& a) {
  const std::string sig = signal_name(interrupt_signal(a.stop.detail));
  Finding f{.id = "launch.interrupted", .severity = Severity::warn};
  f.title = fmt::format("the launch was interrupted by {}{}: every worker was stopped", sig,
                        a.stop.node_rank >= 0 ? " on " + parts::node_label(a, a.stop.node_rank) : "");
  if (!a.stop.detail.empty()) f.evidence.push_back("detail: " + a.stop.detail);
  parts::add_interrupt_evidence(a, f);
  f.fix = sig == "SIGINT"
              ? "Nothing to fix if you pressed Ctrl-C to end the job. If it was stuck, the stacks above show "
                "where each rank still running was; --hang-timeout SECONDS lets launch find the culprit by "
                "itself."
              : "A SIGTERM or SIGHUP usually comes from the scheduler (time limit, preemption), a closed "
                "terminal or a kill: check the job's time limit, or run under nohup/tmux.";
  return f;
}

std::optional<Finding> silent_nodes_finding(const AttemptRecord& a) {
  if (a.silent_nodes.empty()) return std::nullopt;
  std::string nodes;
  for (int n : a.silent_nodes) nodes += (nodes.empty() ? "" : ", ") + parts::node_label(a, n);
  return Finding{
      .id = "launch.node.silent",
      .severity = Severity::warn,
      .title = fmt::format("no record from {} before the deadline: {} ranks are missing from this report",
                           nodes, a.silent_nodes.size() == 1 ? "its" : "their"),
      .fix =
          "That node's launcher may be gone or its network down: read its own output and its workers' "
          "logs on the node itself."};
}

void add_cause_findings(report::Report& r, const AttemptRecord& a) {
  // Ranks that run with another NCCL or other settings: at fail, and first, when it caused a failure in NCCL.
  std::optional<Finding> differs = parts::rank_differs_finding(a);
  switch (a.stop.cause) {
    case StopCause::none:
      r.add(job_ok_finding(a));
      if (auto f = parts::completed_mismatch_finding(a)) r.add(std::move(*f));
      for (auto& f : parts::straggler_findings(a)) r.add(std::move(f));
      if (differs) r.add(std::move(*differs));
      if (auto f = parts::logs_full_finding(a)) r.add(std::move(*f));
      if (auto f = parts::strays_finding(a)) r.add(std::move(*f));
      if (auto f = parts::scheduler_end_finding(a)) r.add(std::move(*f));
      return;
    case StopCause::scheduler_failed:
      r.add(parts::scheduler_failed_finding(a));
      break;
    case StopCause::worker_failed:
      if (auto f = parts::left_early_finding(a)) r.add(std::move(*f));
      // A rank with another NCCL (or its own NCCL setting) explains a failure inside NCCL better than the
      // first rank to fail, which may be its peer (rank 0's "invalid usage" when rank 1 loads another NCCL).
      if (differs && differs->severity == Severity::fail) r.add(*std::exchange(differs, std::nullopt));
      for (auto& f : parts::rank_failed_findings(a)) r.add(std::move(f));
      break;
    case StopCause::hang:
      r.add(parts::hang_finding(a));
      break;
    case StopCause::interrupted:
      r.add(interrupted_finding(a));
      break;
    case StopCause::cannot_start:
      r.add(cannot_start_finding(a));
      break;
    case StopCause::node_lost:
    case StopCause::master_lost:
      r.add(lost_finding(a));
      break;
  }
  if (auto f = stopped_finding(a)) r.add(std::move(*f));
  if (differs) r.add(std::move(*differs));
  for (auto& f : parts::straggler_findings(a)) r.add(std::move(f));  // what the live check saw before
  if (auto f = parts::env_differs_finding(a)) r.add(std::move(*f));
  if (auto f = parts::logs_full_finding(a)) r.add(std::move(*f));
  if (auto f = parts::strays_finding(a)) r.add(std::move(*f));
}

}  // namespace

report::Report build_launch_report(const std::vector<AttemptRecord>& attempts) {
  report::Report r;
  r.title = "distdoctor launch";
  if (attempts.empty()) return r;
  const AttemptRecord& last = attempts.back();
  if (!last.command.empty()) r.notes.push_back("command: " + parts::command_text(last.command));
  if (attempts.size() > 1)
    r.notes.push_back(fmt::format("{} attempts; the findings are the last one's", attempts.size()));
  add_cause_findings(r, last);
  logs::fold_same_failure(r.findings, logs::Catalogue::builtin());  // its diagnosis: one finding with it
  if (auto f = silent_nodes_finding(last)) r.add(std::move(*f));
  for (size_t i = 0; i + 1 < attempts.size(); ++i) r.add(attempt_finding(attempts[i]));
  for (const auto& a : attempts)  // a scheduler's SIGUSR1 and the like: what the workers were sent, and when
    for (const auto& n : a.nodes)
      for (const auto& s : n.signals)
        r.notes.push_back(fmt::format("{}{}: {}",
                                      attempts.size() > 1 ? fmt::format("attempt {}, ", a.attempt) : "",
                                      parts::node_label(a, n.node_rank), s));
  r.facts = nlohmann::json{{"attempts", attempts}};
  return r;
}

int launch_exit_code(const AttemptRecord& last) {
  switch (last.stop.cause) {
    case StopCause::none:
      return report::kExitPass;
    case StopCause::scheduler_failed:  // its status goes in worker_exit_code, as a worker's
    case StopCause::worker_failed:
      return kExitJobFailed;
    case StopCause::hang:
      return kExitHang;
    case StopCause::interrupted:
      return 128 + interrupt_signal(last.stop.detail);
    case StopCause::node_lost:
    case StopCause::master_lost:
      return report::kExitFail;
    case StopCause::cannot_start:
      return report::kExitCannotRun;
  }
  return report::kExitFail;
}

std::optional<int> worker_exit_code(const AttemptRecord& last) {
  if (last.stop.cause == StopCause::none) return 0;
  if (last.stop.cause != StopCause::worker_failed && last.stop.cause != StopCause::scheduler_failed)
    return std::nullopt;
  const RankRecord root = parts::root_record(last);
  if (root.signal > 0) return 128 + root.signal;
  return root.exit_code >= 0 ? std::optional<int>(root.exit_code) : std::nullopt;
}

}  // namespace dd::launch
