// The leader's side of the join protocol: watch who arrives until the join window closes, name the missing,
// read every member and node's facts, drive the mesh, analyse and publish the one verdict.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <thread>

#include "cluster/join_steps.h"
#include "cluster/mesh.h"
#include "nccl/if_select.h"
#include "rules/cluster_rule.h"
#include "rules/rule_util.h"

namespace dd::cluster::join_detail {

using report::Finding;
using report::Severity;
using namespace std::chrono_literals;

JoinOutcome lead(rendezvous::Store& s, const JoinConfig& cfg) {
  auto end = cfg.start + cfg.timeout;
  auto reserve =
      std::clamp(cfg.timeout / 4, std::chrono::milliseconds(2000), std::chrono::milliseconds(15000));
  if (reserve > cfg.timeout / 2) reserve = cfg.timeout / 2;
  auto join_deadline = end - reserve;
  std::vector<std::string> keys;
  for (int r = 0; r < cfg.world; ++r) keys.push_back(k("member", r));
  std::vector<double> seen(cfg.world, -1);
  auto last_progress = Clock::now();
  for (;;) {
    auto have = s.check(keys, end);
    if (!have)
      return alone(cfg, Finding{"cluster.join.store_error",
                                Severity::fail,
                                "the rendezvous store failed",
                                {have.error().message()}});
    int missing = 0;
    for (int r = 0; r < cfg.world; ++r) {
      if ((*have)[r] && seen[r] < 0) seen[r] = secs(Clock::now() - cfg.start);
      missing += seen[r] < 0;
    }
    if (missing == 0 || Clock::now() >= join_deadline) break;
    if (cfg.progress && Clock::now() - last_progress >= 5s) {
      last_progress = Clock::now();
      std::vector<int> m;
      for (int r = 0; r < cfg.world; ++r)
        if (seen[r] < 0) m.push_back(r);
      cfg.progress(fmt::format("waiting for {} {} ({:.0f} s of {:.0f} s)",
                               who(cfg.by_hand) + (m.size() > 1 ? "s" : ""), rank_ranges(m),
                               secs(Clock::now() - cfg.start), secs(join_deadline - cfg.start)));
    }
    std::this_thread::sleep_for(cfg.world > 256 ? 100ms : 30ms);
  }
  ClusterView view;
  view.by_hand = cfg.by_hand;
  view.expected_world = cfg.world;
  std::vector<int> missing;
  std::map<int, std::string> facts_json;
  for (int r = 0; r < cfg.world; ++r) {
    if (seen[r] < 0) {
      missing.push_back(r);
      continue;
    }
    auto m = s.get(k("member", r), Clock::now() + 2s);
    if (!m) continue;
    try {
      Member mem = nlohmann::json::parse(*m).get<Member>();
      mem.joined_after_s = seen[r];
      view.members.push_back(std::move(mem));
    } catch (const std::exception&) {
    }
  }
  // Ranks claimed twice: every extra claimer left its identity under dup/R/N.
  auto dups = s.list("dd/dup/", end);
  if (dups) {
    for (const auto& key : *dups) {
      auto v = s.get(key, Clock::now() + 1s);
      if (!v) continue;
      try {
        Member d = nlohmann::json::parse(*v).get<Member>();
        auto& list = view.dup_claims[d.rank];
        if (list.empty())
          for (const auto& m : view.members)
            if (m.rank == d.rank) list.push_back(m);
        list.push_back(d);
      } catch (const std::exception&) {
      }
    }
  }
  int readers = static_cast<int>(view.members.size()) - 1;
  for (const auto& [r, l] : view.dup_claims) readers += static_cast<int>(l.size()) - 1;
  if (!missing.empty()) {
    std::string arrived;
    int shown = 0;
    for (const auto& m : view.members)
      if (shown++ < 32) arrived += fmt::format("{}{}({})", arrived.empty() ? "" : " ", m.hostname, m.rank);
    if (view.members.size() > 32) arrived += fmt::format(" and {} more", view.members.size() - 32);
    Finding f{"cluster.join.missing", Severity::fail,
              fmt::format("waiting for {} {} since {:.0f} s; arrived: {}",
                          who(cfg.by_hand) + (missing.size() > 1 ? "s" : ""), rank_ranges(missing),
                          secs(Clock::now() - cfg.start), arrived.empty() ? "(none)" : arrived)};
    for (int r : missing)
      if (r < static_cast<int>(cfg.expected_hosts.size()))
        f.evidence.push_back(
            fmt::format("{} {}: expected on host {}", who(cfg.by_hand), r, cfg.expected_hosts[r]));
    f.evidence.push_back(fmt::format("{} of {} joined; join window {:.0f} s of --timeout {:.0f} s",
                                     view.members.size(), cfg.world, secs(join_deadline - cfg.start),
                                     secs(cfg.timeout)));
    f.fix =
        "Start distdoctor on the missing nodes (the master printed the command), and check that they can "
        "reach the master's address and port (firewall, wrong --master, wrong token: their own output says "
        "which). Raise --timeout if nodes start slowly.";
    for (const auto& [r, claimers] : view.dup_claims)
      f.evidence.push_back(
          fmt::format("{} {} was claimed by {} processes: a missing node may have been given "
                      "the wrong --node-rank",
                      who(cfg.by_hand), r, claimers.size()));
    JoinOutcome o;
    o.leader = true;
    o.report.title = "distdoctor check — cluster (incomplete)";
    o.report.notes = cfg.notes;
    o.report.add(f);
    ClusterView claims_only;
    claims_only.by_hand = cfg.by_hand;
    claims_only.dup_claims = view.dup_claims;
    for (auto& d : rules::run_cluster_rules(claims_only))
      if (d.id == "cluster.identity.rank_twice") o.report.add(std::move(d));
    o.full = {{"members", view.members}, {"missing_ranks", missing}};
    publish_verdict(s, o.report, "abort", readers, end, cfg.cleanup);
    return o;
  }
  for (const auto& m : view.members)
    if (m.has_facts)
      if (auto f = s.get(k("facts", m.rank), Clock::now() + 2s)) facts_json[m.rank] = *f;
  view.nodes = group_nodes(view.members);
  nlohmann::json plan{{"nodes", nlohmann::json::array()}};
  for (size_t i = 0; i < view.nodes.size(); ++i) {
    auto& n = view.nodes[i];
    if (auto it = facts_json.find(n.lead.rank); it != facts_json.end()) {
      try {
        n.facts = nlohmann::json::parse(it->second).get<probe::NodeFacts>();
        n.has_facts = true;
      } catch (const std::exception&) {
      }
    }
    std::string primary;
    if (n.has_facts) {
      auto ifs = nccl::nccl_socket_interfaces(n.facts.net, n.lead.nccl_ifname_setting,
                                              rules::nccl_min_version_code(n.facts));
      if (!ifs.empty()) primary = ifs.front().name;
    }
    plan["nodes"].push_back(
        {{"index", i}, {"rank", n.lead.rank}, {"primary", primary}, {"endpoints", n.lead.endpoints}});
  }
  (void)s.set(kPlan, plan.dump(), end);
  (void)s.set(kGo, "mesh", end);
  std::vector<std::string> mesh_keys;
  for (const auto& n : view.nodes)
    if (n.has_facts && !n.lead.endpoints.empty()) mesh_keys.push_back(k("mesh", n.lead.rank));
  if (cfg.self.has_facts)
    (void)s.set(k("mesh", cfg.self.rank), nlohmann::json(my_mesh(plan, cfg, end - 1s)).dump(), end);
  view.mesh.ran = !mesh_keys.empty();
  (void)s.wait(mesh_keys, end - 500ms);
  auto have = s.check(mesh_keys, end);
  std::vector<std::string> no_mesh;
  for (size_t i = 0; i < mesh_keys.size(); ++i) {
    if (!have || !(*have)[i]) {
      no_mesh.push_back(mesh_keys[i].substr(8));
      continue;
    }
    auto v = s.get(mesh_keys[i], Clock::now() + 1s);
    if (!v) continue;
    try {
      auto probes = nlohmann::json::parse(*v).get<std::vector<MeshProbe>>();
      view.mesh.probes.insert(view.mesh.probes.end(), probes.begin(), probes.end());
    } catch (const std::exception&) {
    }
  }
  JoinOutcome o;
  o.leader = true;
  o.report = analyze_cluster(view, cfg);
  if (!no_mesh.empty())
    o.report.add(
        Finding{"cluster.mesh.incomplete",
                Severity::warn,
                fmt::format("no mesh results from ranks {} before the deadline", fmt::join(no_mesh, ",")),
                {},
                "Those nodes were too slow or lost their store connection; raise --timeout."});
  for (const auto& line : render_mesh_matrix(view)) o.report.notes.push_back(line);
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : view.nodes)
    nodes.push_back({{"node_rank", n.node_rank},
                     {"hostname", n.hostname},
                     {"ranks", n.ranks},
                     {"facts", n.has_facts ? nlohmann::json(n.facts) : nlohmann::json(nullptr)}});
  o.full = {{"nodes", nodes}, {"members", view.members}, {"mesh", view.mesh}};
  publish_verdict(s, o.report, "done", readers, end, cfg.cleanup);
  return o;
}

}  // namespace dd::cluster::join_detail
