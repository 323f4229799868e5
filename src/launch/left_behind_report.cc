// launch.logs.full and launch.job.strays: what a node's run left behind on the machine (a full log folder,
// processes the workers started outside their groups), reported whatever the outcome. Internal to src/launch;
// pure.
#include <fmt/format.h>

#include "launch/report_parts.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

// launch.logs.full: a node whose log directory has no room left; its workers' writes failed (ENOSPC) where
// launch cannot see them, so their logs are cut short.
std::optional<Finding> logs_full_finding(const AttemptRecord& a) {
  constexpr int64_t kFullBytes = 4096;
  Finding f{.id = "launch.logs.full", .severity = Severity::warn};
  std::string nodes;
  for (const auto& n : a.nodes) {
    if (n.log_free_bytes < 0 || n.log_free_bytes >= kFullBytes) continue;
    nodes += (nodes.empty() ? "" : ", ") + parts::node_label(a, n.node_rank);
    std::string log = n.ranks.empty() ? "" : n.ranks.front().log_path;
    f.evidence.push_back(fmt::format("{}: {} bytes free (No space left on device) for logs such as {}",
                                     parts::node_label(a, n.node_rank), n.log_free_bytes, log));
  }
  if (nodes.empty()) return std::nullopt;
  f.title = "the log directory is full on " + nodes + ": worker logs are cut short";
  f.fix =
      "Free space there or give --log-dir a filesystem with room (the logs hold every byte a worker wrote).";
  return f;
}

// launch.job.strays: processes the workers started outside their own process groups (setsid, a daemon) that
// outlived them; launch (a child subreaper) stopped them, and says which, so nothing runs on unseen.
std::optional<Finding> strays_finding(const AttemptRecord& a) {
  Finding f{.id = "launch.job.strays", .severity = Severity::warn};
  size_t count = 0;
  for (const auto& n : a.nodes) {
    count += n.strays.size() + n.strays_more;
    for (const auto& s : n.strays)
      if (f.evidence.size() < 8) f.evidence.push_back(parts::node_label(a, n.node_rank) + ": " + s);
  }
  if (count == 0) return std::nullopt;
  if (count > f.evidence.size()) f.evidence.push_back(fmt::format("and {} more", count - f.evidence.size()));
  f.title = fmt::format(
      "{} process{} the workers started outlived them (outside their process groups, as "
      "setsid or a daemon leaves them): launch stopped {}",
      count, count == 1 ? "" : "es", count == 1 ? "it" : "them");
  f.fix =
      "A worker should end what it starts: wait for its helpers, or stop them before it exits. A server "
      "meant "
      "to outlive the job belongs outside the launch (start it before, or with its own supervisor).";
  return f;
}

}  // namespace dd::launch::parts
