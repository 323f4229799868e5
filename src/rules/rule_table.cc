// The table of single-node rules. Adding a check: one new file in src/rules/ and one row here.
#include "rules/node_rules.h"
#include "rules/rule.h"

namespace dd::rules {

const std::vector<NodeRule>& node_rules() {
  static const std::vector<NodeRule> table = {
      gpu_presence_rule(),  cuda_driver_rule(),   gpu_health_rule(),   gpu_busy_rule(),
      cuda_visible_rule(),  p2p_transport_rule(), nccl_version_rule(), nccl_env_rule(),
      socket_ifname_rule(), gloo_ifname_rule(),   ib_hca_rule(),       rdma_userspace_rule(),
      hostname_rule(),      sys_limits_rule(),    sysv_shm_rule(),     nccl_debug_file_rule(),
      probe_errors_rule(),
  };
  return table;
}

std::vector<report::Finding> run_node_rules(const probe::NodeFacts& facts, const CheckOptions& opt) {
  std::vector<report::Finding> out;
  for (const auto& r : node_rules()) {
    for (auto& f : r.fn(facts, opt)) {
      if (f.node.empty()) f.node = facts.host.hostname;
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::vector<FindingDoc> all_rule_docs() {
  std::vector<FindingDoc> docs;
  for (const auto& r : node_rules()) docs.insert(docs.end(), r.docs.begin(), r.docs.end());
  for (auto& d : cluster_rule_docs()) docs.push_back(std::move(d));
  return docs;
}

}  // namespace dd::rules
