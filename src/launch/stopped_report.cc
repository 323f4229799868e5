// launch.rank.stopped, the ranks launch stopped itself after the job's cause, and launch.node.silent, the
// nodes that sent no record for the report.
#include <fmt/format.h>

#include <csignal>

#include "launch/report_parts.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

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
    per_node += fmt::format("{}{}: {} {}", per_node.empty() ? "" : "; ", node_label(a, n.node_rank),
                            ranks.size() == 1 ? "rank" : "ranks", rank_ranges(ranks));
  }
  if (count == 0) return std::nullopt;
  const std::string after =
      a.stop.cause == StopCause::worker_failed ? fmt::format(" after rank {} failed", root_record(a).rank)
      : a.stop.cause == StopCause::hang        ? std::string(" after the hang")
      : a.stop.cause == StopCause::scheduler_failed ? fmt::format(" after {} failed", companion_who())
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

std::optional<Finding> silent_nodes_finding(const AttemptRecord& a) {
  if (a.silent_nodes.empty()) return std::nullopt;
  std::string nodes;
  for (int n : a.silent_nodes) nodes += (nodes.empty() ? "" : ", ") + node_label(a, n);
  return Finding{
      .id = "launch.node.silent",
      .severity = Severity::warn,
      .title = fmt::format("no record from {} before the deadline: {} ranks are missing from this report",
                           nodes, a.silent_nodes.size() == 1 ? "its" : "their"),
      .fix =
          "That node's launcher may be gone or its network down: read its own output and its workers' "
          "logs on the node itself."};
}

}  // namespace dd::launch::parts
