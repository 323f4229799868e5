// nnodes_differ (see node_count.h): one wording for check and launch.
#include "cluster/node_count.h"

#include <fmt/format.h>

namespace dd::cluster {

namespace {

std::string name_of(const CountWords& w, const NodeCount& n) {
  if (n.self) return fmt::format("this node (rank {})", n.rank);
  return fmt::format("{} {}{}", w.who, n.rank, n.host.empty() ? "" : " (" + n.host + ")");
}

}  // namespace

std::optional<report::Finding> nnodes_differ(const CountWords& w, const NodeCount& a, const NodeCount& b,
                                             const std::string& seen) {
  if (a.count <= 0 || b.count <= 0 || a.count == b.count) return std::nullopt;
  report::Finding f{w.id, report::Severity::fail, "", {}, ""};
  f.title = fmt::format("{} was started with {} {}, {} with {} {}", name_of(w, b), w.count, b.count,
                        name_of(w, a), w.count, a.count);
  f.evidence.push_back(seen);
  f.fix =
      "Start every node with the same --nnodes (paste the command node rank 0 printed); under a scheduler, "
      "check that the node count of the allocation and of the launch line agree.";
  return f;
}

}  // namespace dd::cluster
