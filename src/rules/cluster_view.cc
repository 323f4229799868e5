// The grouping of a cluster run's ranks into nodes (ClusterView::nodes); see cluster_view.h.
#include "rules/cluster_view.h"

#include <algorithm>

namespace dd::rules {

std::vector<ClusterNode> group_nodes(const std::vector<Member>& members) {
  bool all_given = !members.empty();
  for (const auto& m : members) all_given = all_given && m.node_rank >= 0;
  std::map<std::string, size_t> by_key;
  std::vector<ClusterNode> nodes;
  std::vector<Member> sorted = members;
  std::sort(sorted.begin(), sorted.end(), [](const Member& a, const Member& b) { return a.rank < b.rank; });
  for (const auto& m : sorted) {
    std::string key =
        all_given ? "n" + std::to_string(m.node_rank) : m.hostname + "|" + m.boot_id + "|" + m.netns;
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      ClusterNode n;
      n.node_rank = all_given ? m.node_rank : static_cast<int>(nodes.size());
      n.hostname = m.hostname;
      n.lead = m;
      it = by_key.emplace(key, nodes.size()).first;
      nodes.push_back(std::move(n));
    }
    ClusterNode& n = nodes[it->second];
    n.ranks.push_back(m.rank);
    // The facts publisher is the lowest local rank that has facts.
    if (m.has_facts && (!n.lead.has_facts || m.local_rank < n.lead.local_rank)) n.lead = m;
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const ClusterNode& a, const ClusterNode& b) { return a.node_rank < b.node_rank; });
  return nodes;
}

}  // namespace dd::rules
