// The leader's side of the join protocol: watch who arrives until the join window closes, name the missing,
// read every member and node's facts, drive the mesh (join_mesh.cc), analyse and publish the one verdict.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cluster/join_steps.h"
#include "cluster/mesh.h"
#include "common/json_limits.h"
#include "common/safe_text.h"
#include "probe/facts_json.h"
#include "rules/cluster_rule.h"
#include "rules/rule_util.h"

namespace dd::cluster::join_detail {

using report::Finding;
using report::Severity;
using namespace std::chrono_literals;

namespace {

// Join window: the run's deadline minus a reserve for the mesh and the verdict.
Clock::time_point join_window_end(const JoinConfig& cfg) {
  auto reserve =
      std::clamp(cfg.timeout / 4, std::chrono::milliseconds(2000), std::chrono::milliseconds(15000));
  if (reserve > cfg.timeout / 2) reserve = cfg.timeout / 2;
  return cfg.start + cfg.timeout - reserve;
}

// The members that came, in rank order, with their arrival times; the ranks that did not go to *missing.
// Those whose record could not be read came too: view.unreadable names them.
void read_members(const JoinConfig& cfg, Arrivals& a, ClusterView& view, std::vector<int>* missing) {
  for (int r = 0; r < cfg.world; ++r) {
    if (a.seen[r] < 0) {
      missing->push_back(r);
    } else if (auto m = a.members.find(r); m != a.members.end()) {
      m->second.joined_after_s = a.seen[r];
      view.members.push_back(std::move(m->second));
    }
  }
  view.unreadable = std::move(a.unreadable);
}

// Ranks claimed twice: every extra claimer left its identity under dup/R/N.
void read_dup_claims(rendezvous::Store& s, const rendezvous::MeetingKeys& keys, ClusterView& view,
                     Clock::time_point end) {
  auto dups = s.list(keys.at("dup/"), end);
  if (!dups) return;
  for (const auto& key : *dups) {
    auto v = s.get(key, Clock::now() + 1s);
    if (!v) continue;
    auto d = dd::parse_record<Member>(*v);
    if (!d) continue;
    auto& list = view.dup_claims[d->rank];
    if (list.empty())
      for (const auto& m : view.members)
        if (m.rank == d->rank) list.push_back(m);
    list.push_back(*d);
  }
}

Finding missing_finding(const JoinConfig& cfg, const ClusterView& view, const std::vector<int>& missing,
                        Clock::time_point join_deadline) {
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
  f.evidence.push_back(fmt::format("{} of {} joined; join window {:.0f} s of {} {:.0f} s",
                                   view.members.size(), cfg.world, secs(join_deadline - cfg.start),
                                   cfg.timeout_flag, secs(cfg.timeout)));
  f.fix =
      "Start distdoctor on the missing nodes (the master printed the command), and check that they can "
      "reach the master's address and port (firewall, wrong --master, wrong token: their own output says "
      "which). Raise " +
      cfg.timeout_flag + " if nodes start slowly.";
  for (const auto& [r, claimers] : view.dup_claims)
    f.evidence.push_back(
        fmt::format("{} {} was claimed by {} processes: a missing node may have been given "
                    "the wrong --node-rank",
                    who(cfg.by_hand), r, claimers.size()));
  return f;
}

// The verdict of a run that some ranks never joined: who is missing, and ranks claimed twice.
JoinOutcome incomplete_outcome(const JoinConfig& cfg, const ClusterView& view,
                               const std::vector<int>& missing, Clock::time_point join_deadline) {
  JoinOutcome o;
  o.leader = true;
  o.report.title = "distdoctor check — cluster (incomplete)";
  o.report.notes = cfg.notes;
  o.report.add(missing_finding(cfg, view, missing, join_deadline));
  if (auto f = unreadable_members_finding(cfg, view)) o.report.add(std::move(*f));
  ClusterView claims_only;
  claims_only.by_hand = cfg.by_hand;
  claims_only.dup_claims = view.dup_claims;
  for (auto& d : rules::run_cluster_rules(claims_only))
    if (d.id == "cluster.identity.rank_twice") o.report.add(std::move(d));
  o.full = {{"members", view.members}, {"missing_ranks", missing}};
  return o;
}

// Groups the members into nodes and reads each node's published facts.
void read_nodes(rendezvous::Store& s, const rendezvous::MeetingKeys& keys, ClusterView& view) {
  std::map<int, std::string> facts_json;
  for (const auto& m : view.members)
    if (m.has_facts)
      if (auto f = s.get(keys.of("facts", m.rank), Clock::now() + 2s)) facts_json[m.rank] = *f;
  view.nodes = group_nodes(view.members);
  for (auto& n : view.nodes) {
    auto it = facts_json.find(n.lead.rank);
    if (it == facts_json.end()) continue;
    if (auto facts = probe::facts_from_text(it->second)) {
      n.facts = std::move(*facts);
      n.has_facts = true;
    }
  }
}

JoinOutcome complete_outcome(const JoinConfig& cfg, const ClusterView& view, const MeshStep& mesh) {
  const std::vector<std::string>& no_mesh = mesh.no_mesh;
  JoinOutcome o;
  o.leader = true;
  o.report = analyze_cluster(view, cfg);
  if (auto f = unreadable_members_finding(cfg, view)) o.report.add(std::move(*f));
  if (!mesh.lost.empty())  // the cause leads: what follows from it comes after
    o.report.findings.insert(o.report.findings.begin(), lost_members_finding(cfg, view.members, mesh.lost));
  if (!no_mesh.empty())
    o.report.add(
        Finding{"cluster.mesh.incomplete",
                Severity::fail,  // joined, still connected, and silent: such a node would stall the job too
                fmt::format("no mesh results from ranks {} before the deadline", fmt::join(no_mesh, ",")),
                {},
                "Those nodes joined and kept their connection but did not answer: a stopped or stuck process "
                "(state T or D in ps), or a network path to the master that broke. Raise " +
                    cfg.timeout_flag + " only if they are merely slow."});
  for (const auto& line : render_mesh_matrix(view)) o.report.notes.push_back(line);
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : view.nodes)
    nodes.push_back({{"node_rank", n.node_rank},
                     {"hostname", n.hostname},
                     {"ranks", n.ranks},
                     {"facts", n.has_facts ? nlohmann::json(n.facts) : nlohmann::json(nullptr)}});
  o.full = {{"nodes", nodes}, {"members", view.members}, {"mesh", view.mesh}};
  return o;
}

}  // namespace

JoinOutcome lead(rendezvous::Store& s, const JoinConfig& cfg) {
  const auto end = cfg.start + cfg.timeout;
  const auto join_deadline = join_window_end(cfg);
  auto arrivals = watch_arrivals(s, cfg, join_deadline);
  if (!arrivals)
    return alone(cfg, Finding{"cluster.join.store_error",
                              Severity::fail,
                              "the rendezvous store failed",
                              {arrivals.error().message()}});
  ClusterView view;
  view.by_hand = cfg.by_hand;
  view.expected_world = cfg.world;
  std::vector<int> missing;
  read_members(cfg, *arrivals, view, &missing);
  read_dup_claims(s, cfg.keys, view, end);
  int readers = static_cast<int>(view.members.size() + view.unreadable.size()) - 1;
  for (const auto& [r, l] : view.dup_claims) readers += static_cast<int>(l.size()) - 1;
  if (arrivals->size_differs) {  // the nodes disagree on the job: nothing else is worth running
    JoinOutcome o;
    o.leader = true;
    o.report.title = "distdoctor check — cluster (nodes started with different node counts)";
    o.report.notes = cfg.notes;
    o.report.add(std::move(*arrivals->size_differs));
    o.full = {{"members", view.members}, {"missing_ranks", missing}};
    publish_verdict(s, cfg.keys, o.report, "abort", readers, end, cfg.cleanup);
    return o;
  }
  if (!missing.empty()) {
    JoinOutcome o = incomplete_outcome(cfg, view, missing, join_deadline);
    publish_verdict(s, cfg.keys, o.report, "abort", readers, end, cfg.cleanup);
    return o;
  }
  read_nodes(s, cfg.keys, view);
  const MeshStep mesh = run_cluster_mesh(s, cfg, view, end);
  readers -= static_cast<int>(mesh.lost.size());  // a process that is gone reads no verdict
  const bool all_facts =
      std::all_of(view.nodes.begin(), view.nodes.end(), [](auto& n) { return n.has_facts; });
  rules::CrossNodeView xn;
  if (cfg.cross_node && all_facts && mesh.lost.empty())  // no collective can span a node that left
    xn = lead_cross_node(s, *cfg.cross_node, cfg.self.rank, cfg.self.has_facts, view);
  if (!xn.phases.empty())  // a node that fell silent will not read the verdict either
    for (const auto& n : xn.phases.back().nodes) readers -= n.reported ? 0 : 1;
  JoinOutcome o = complete_outcome(cfg, view, mesh);
  if (cfg.cross_node) {
    for (auto& f : rules::cluster_collectives_findings(view, xn)) {
      if (f.id == "cluster.collectives.bandwidth")  // the paths, shown like the mesh matrix
        for (const auto& line : f.evidence) o.report.notes.push_back("collectives " + line);
      o.report.add(std::move(f));
    }
    o.full["collectives"] = xn;
  }
  publish_verdict(s, cfg.keys, o.report, "done", readers, std::max(end, Clock::now() + 5s), cfg.cleanup);
  return o;
}

}  // namespace dd::cluster::join_detail
