// The table of cluster rules (run by the leader over all nodes). Adding one: a new cluster_*.cc and one row.
#include <fmt/format.h>

#include "rules/cluster_collectives.h"
#include "rules/cluster_rule.h"

namespace dd::rules {

const std::vector<ClusterRule>& cluster_rules() {
  static const std::vector<ClusterRule> table = {
      cluster_identity_rule(), cluster_versions_rule(), cluster_env_rule(),         cluster_shape_rule(),
      cluster_network_rule(),  cluster_mesh_rule(),     cluster_collectives_rule(),
  };
  return table;
}

std::vector<report::Finding> run_cluster_rules(const ClusterView& view) {
  std::vector<report::Finding> out;
  for (const auto& r : cluster_rules())
    for (auto& f : r.fn(view)) {
      if (f.area.empty()) f.area = "cluster";
      out.push_back(std::move(f));
    }
  return out;
}

std::vector<FindingDoc> cluster_rule_docs() {
  std::vector<FindingDoc> docs;
  for (const auto& r : cluster_rules()) docs.insert(docs.end(), r.docs.begin(), r.docs.end());
  return docs;
}

std::string node_label(const ClusterNode& n) { return fmt::format("{}({})", n.hostname, n.node_rank); }

std::string join_labels(const std::vector<std::string>& labels) {
  std::string s;
  for (const auto& l : labels) s += (s.empty() ? "" : ", ") + l;
  return s;
}

std::string describe_groups(const std::map<std::string, std::vector<std::string>>& groups) {
  std::string s;
  for (const auto& [value, labels] : groups)
    s += fmt::format("{}{}: {}", s.empty() ? "" : "; ", value.empty() ? "(unset)" : value,
                     join_labels(labels));
  return s;
}

}  // namespace dd::rules
