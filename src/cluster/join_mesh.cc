// The leader's mesh step of the join (join_steps.h): the plan every node reads, this node's part, every
// node's probes collected into the view, without waiting for a node that left, and without a word about the
// links of a node that left (join_liveness.cc).
#include <algorithm>

#include "cluster/join_steps.h"
#include "cluster/mesh.h"
#include "common/json_limits.h"
#include "common/safe_text.h"
#include "rendezvous/meeting_wait.h"
#include "rules/rule_util.h"

namespace dd::cluster::join_detail {

using namespace std::chrono_literals;

namespace {

// The mesh plan every node reads: each node's endpoints and the interface NCCL would use there ("primary",
// also measured for bandwidth).
nlohmann::json mesh_plan(const ClusterView& view) {
  nlohmann::json plan{{"nodes", nlohmann::json::array()}};
  for (size_t i = 0; i < view.nodes.size(); ++i) {
    const auto& n = view.nodes[i];
    std::string primary;
    if (n.has_facts) {
      auto ifs = rules::nccl_socket_ifs(n.facts);
      if (!ifs.empty()) primary = ifs.front().name;
    }
    plan["nodes"].push_back(
        {{"index", i}, {"rank", n.lead.rank}, {"primary", primary}, {"endpoints", n.lead.endpoints}});
  }
  return plan;
}

}  // namespace

MeshStep run_cluster_mesh(rendezvous::Store& s, const JoinConfig& cfg, ClusterView& view,
                          Clock::time_point end) {
  const nlohmann::json plan = mesh_plan(view);
  (void)s.set(cfg.keys.at("plan"), json_text(plan), end);
  (void)s.set(cfg.keys.at("go"), "mesh", end);
  std::vector<std::string> mesh_keys;
  std::vector<int> mesh_ranks, member_ranks;
  for (const auto& n : view.nodes)
    if (n.has_facts && !n.lead.endpoints.empty()) {
      mesh_keys.push_back(cfg.keys.of("mesh", n.lead.rank));
      mesh_ranks.push_back(n.lead.rank);
    }
  if (cfg.self.has_facts) {  // the master's own result: stored even if probing ran up to the deadline
    auto mine = json_text(nlohmann::json(my_mesh(plan, cfg, end - 1s)));
    (void)s.set(cfg.keys.of("mesh", cfg.self.rank), mine, std::max(end, Clock::now() + 1s));
  }
  view.mesh.ran = !mesh_keys.empty();
  MeshStep step;
  // Every node's results, without waiting for a node that left (its live key went with its connection).
  auto waited = rendezvous::wait_for_all(
      s, cfg.keys,
      {.ranks = mesh_ranks, .what = "mesh", .until = end - 500ms, .poll = 20ms, .liveness = true});
  if (waited) step.lost = waited->gone;
  // Reading what already arrived is quick, but `end` may have passed while this node probed a dead link:
  // give the reads a second of their own, or every result would count as missing.
  const auto read_by = std::max(end, Clock::now() + 1s);
  auto have = s.check(mesh_keys, read_by);
  for (size_t i = 0; i < mesh_keys.size(); ++i) {
    if (!have || !(*have)[i]) continue;
    auto v = s.get(mesh_keys[i], Clock::now() + 1s);
    if (!v) continue;
    // A peer's record: parse_record refuses a wrong shape or an out-of-range number (a probe's milliseconds
    // and Mb/s are far inside int32's range); such a node's probes are left out, as if it had sent none.
    auto probes = parse_record<std::vector<MeshProbe>>(*v);
    if (probes) view.mesh.probes.insert(view.mesh.probes.end(), probes->begin(), probes->end());
  }
  // Who else left: every member is looked at again, for as long as the slowest link suggests (never past the
  // run's end): a node killed just before it would be named for its slow connects, not as gone.
  for (const auto& m : view.members)
    if (std::find(step.lost.begin(), step.lost.end(), m.rank) == step.lost.end())
      member_ranks.push_back(m.rank);
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
  const auto grace = std::clamp(liveness_grace(view.mesh), 0ms, std::max(left, 0ms));
  for (int r : gone_after_mesh(s, cfg, member_ranks, grace, read_by)) step.lost.push_back(r);
  std::sort(step.lost.begin(), step.lost.end());
  for (size_t i = 0; i < mesh_keys.size(); ++i)
    if ((!have || !(*have)[i]) &&
        std::find(step.lost.begin(), step.lost.end(), mesh_ranks[i]) == step.lost.end())
      step.no_mesh.push_back(std::to_string(mesh_ranks[i]));
  drop_lost_probes(view, step.lost);
  return step;
}

}  // namespace dd::cluster::join_detail
