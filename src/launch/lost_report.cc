// The findings of a job that lost a node or its master (launch.node.lost, launch.master.lost) or could not
// start its workers on a node (launch.logs.cannot_write): the causes of failure_report_causes.cc's rows.
#include <fmt/format.h>

#include <algorithm>

#include "launch/report_parts.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

Finding lost_finding(const AttemptRecord& a) {
  const bool master = a.stop.cause == StopCause::master_lost;
  Finding f{.id = master ? "launch.master.lost" : "launch.node.lost", .severity = Severity::fail};
  std::string who = master ? "the master (node 0)" : "a node";
  if (!master && !a.silent_nodes.empty()) {
    who = node_label(a, a.silent_nodes.front());
    for (size_t i = 1; i < a.silent_nodes.size(); ++i) who += ", " + node_label(a, a.silent_nodes[i]);
  }
  f.title = fmt::format("{} stopped answering{}", who, a.stop.detail.empty() ? "" : ": " + a.stop.detail);
  // A heartbeat loss names the lost node in node_rank (the title names it): no "noticed by" it then.
  const bool names_lost = !master && std::find(a.silent_nodes.begin(), a.silent_nodes.end(),
                                               a.stop.node_rank) != a.silent_nodes.end();
  if (a.stop.node_rank >= 0 && !names_lost)
    f.evidence.push_back("noticed by " + node_label(a, a.stop.node_rank));
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
  f.title = fmt::format("{} could not create its workers' log files: {}",
                        a.stop.node_rank >= 0 ? node_label(a, a.stop.node_rank) : "a node", a.stop.detail);
  f.fix =
      "Free inodes or space on that filesystem (many small files use up its inodes: `df -i` shows them), or "
      "give --log-dir a folder with room that this user can write. No worker was started on that node; the "
      "other nodes stopped theirs.";
  return f;
}

}  // namespace dd::launch::parts
