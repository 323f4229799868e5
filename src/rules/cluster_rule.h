// Cluster rules: pure functions over every node's facts and identity plus the mesh measurements
// (ClusterView, rules/cluster_view.h), with their own table (cluster_rule_table.cc).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "report/finding.h"
#include "rules/cluster_view.h"
#include "rules/rule.h"

namespace dd::rules {

using ClusterRuleFn = std::vector<report::Finding> (*)(const ClusterView& view);

struct ClusterRule {
  const char* name;
  ClusterRuleFn fn;
  std::vector<FindingDoc> docs;
};

const std::vector<ClusterRule>& cluster_rules();
std::vector<report::Finding> run_cluster_rules(const ClusterView& view);

// Rules, one per file.
ClusterRule cluster_versions_rule();  // cluster_versions.cc
ClusterRule cluster_env_rule();       // cluster_env.cc
ClusterRule cluster_identity_rule();  // cluster_identity.cc
ClusterRule cluster_shape_rule();     // cluster_shape.cc
ClusterRule cluster_network_rule();   // cluster_network.cc
ClusterRule cluster_mesh_rule();      // cluster_mesh.cc

// Helpers shared by the cluster rules.
std::string node_label(const ClusterNode& n);  // "host(2)"
// "v1: a(0), b(1); v2: c(2)" from value -> node labels.
std::string describe_groups(const std::map<std::string, std::vector<std::string>>& groups);
std::string join_labels(const std::vector<std::string>& labels);

}  // namespace dd::rules
