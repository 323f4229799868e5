// The leader's analysis of a complete cluster: node rules on every node (identical findings folded into one
// line naming the nodes), the cluster rules, and the join summary.
#include <fmt/format.h>

#include <map>
#include <tuple>

#include "cluster/join.h"
#include "rules/cluster_rule.h"
#include "rules/rule.h"

namespace dd::cluster {

using report::Finding;
using report::Severity;

report::Report analyze_cluster(const ClusterView& view, const JoinConfig& cfg) {
  report::Report r;
  r.title = fmt::format("distdoctor check — cluster of {} node(s), {} process(es)", view.nodes.size(),
                        view.members.size());
  r.notes = cfg.notes;
  double last = 0;
  for (const auto& m : view.members) last = std::max(last, m.joined_after_s);
  // A member whose record could not be read joined too (cluster.join.unreadable_member names it).
  r.add(Finding{
      "cluster.join.ok", Severity::ok,
      fmt::format("all {} {} joined within {:.1f} s{}", view.members.size() + view.unreadable.size(),
                  cfg.by_hand ? "nodes" : "processes", last,
                  view.unreadable.empty()
                      ? ""
                      : fmt::format(" ({} with a record that cannot be read)", view.unreadable.size()))});
  // Node rules per node; the same finding on several nodes becomes one line naming them.
  std::vector<std::tuple<std::string, int, std::string>> order;
  std::map<std::tuple<std::string, int, std::string>, std::pair<Finding, std::vector<std::string>>> folded;
  for (const auto& n : view.nodes) {
    if (!n.has_facts) continue;
    rules::CheckOptions co;
    co.nproc_per_node = view.by_hand ? cfg.nproc_per_node : static_cast<int>(n.ranks.size());
    co.nnodes = static_cast<int>(view.nodes.size());
    for (auto& f : rules::run_node_rules(n.facts, co)) {
      auto key = std::make_tuple(f.id, static_cast<int>(f.severity), f.title);
      auto it = folded.find(key);
      if (it == folded.end()) {
        order.push_back(key);
        it = folded.emplace(key, std::make_pair(f, std::vector<std::string>{})).first;
      }
      it->second.second.push_back(fmt::format("{}({})", n.hostname, n.node_rank));
    }
  }
  for (const auto& key : order) {
    auto& [f, where] = folded[key];
    if (where.size() > 1) {
      f.node = where.size() == view.nodes.size() ? fmt::format("all {} nodes", where.size()) : "";
      if (f.node.empty()) {
        for (size_t i = 0; i < where.size() && i < 8; ++i) f.node += (i ? ", " : "") + where[i];
        if (where.size() > 8) f.node += fmt::format(" and {} more", where.size() - 8);
      }
    } else {
      f.node = where.front();
    }
    r.add(f);
  }
  for (auto& f : rules::run_cluster_rules(view)) r.add(std::move(f));
  return r;
}

}  // namespace dd::cluster
