// Join protocol (see join.h). Keys, all under "dd/": claim/R (counter), member/R, facts/R, dup/R/N, plan,
// go ("mesh" or "abort"), mesh/R, verdict, read (counter of processes that have read the verdict).
#include "cluster/join.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <thread>

#include "cluster/mesh.h"
#include "cluster/nccl_if_guess.h"
#include "rules/cluster_rule.h"

namespace dd::cluster {

using report::Finding;
using report::Severity;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

std::string k(const char* what, int r) { return fmt::format("dd/{}/{}", what, r); }
const std::string kPlan = "dd/plan", kGo = "dd/go", kVerdict = "dd/verdict", kRead = "dd/read",
                  kDone = "dd/done";

double secs(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string who(bool by_hand) { return by_hand ? "node rank" : "rank"; }

// A verdict that ends the run on this process only (its store broke before the leader could answer).
JoinOutcome alone(const JoinConfig& cfg, Finding f) {
  JoinOutcome o;
  o.report.notes = cfg.notes;
  f.rank = cfg.self.rank;
  o.report.add(std::move(f));
  return o;
}

Finding lost_master(const JoinConfig& cfg, const char* phase, const Error& e, Clock::time_point deadline) {
  bool timed_out = Clock::now() >= deadline - 50ms;
  Finding f;
  f.severity = Severity::fail;
  if (timed_out) {
    f.id = "cluster.join.no_answer";
    f.title = fmt::format("no answer from the master {} {} within {:.0f} s", cfg.master_desc, phase,
                          secs(Clock::now() - cfg.start));
    f.fix =
        "The master (node rank 0) did not finish in time: look at its output; it names the missing nodes. "
        "Start every node within the --timeout window.";
  } else {
    f.id = "cluster.join.master_lost";
    f.title = fmt::format("lost the master {} {}", cfg.master_desc, phase);
    f.fix =
        "The master process ended or its host became unreachable. Check that node (did it crash, was it "
        "killed, is the network up?) and run the check again on every node.";
  }
  f.evidence.push_back(e.message());
  return f;
}

std::vector<MeshProbe> my_mesh(const nlohmann::json& plan, const JoinConfig& cfg, Clock::time_point end) {
  int me = -1;
  for (const auto& n : plan["nodes"])
    if (n.value("rank", -1) == cfg.self.rank) me = n.value("index", -1);
  std::vector<MeshTarget> targets;
  for (const auto& n : plan["nodes"]) {
    int idx = n.value("index", -1);
    if (idx == me || idx < 0) continue;
    for (const auto& e : n.value("endpoints", std::vector<MeshEndpoint>{}))
      targets.push_back(MeshTarget{idx, n.value("rank", -1), e, e.ifname == n.value("primary", "")});
  }
  MeshRunOptions o;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
  o.connect_timeout = std::clamp(left / 3, 200ms, cfg.mesh_connect_timeout);
  o.bandwidth_bytes = cfg.bandwidth_bytes;
  o.job_tag = cfg.job_tag;
  o.from_node = me;
  return me < 0 ? std::vector<MeshProbe>{} : run_mesh(targets, o);
}

// Publishes the verdict and gives the others a moment to read it (the master's store dies with us).
void publish_verdict(rendezvous::Store& s, const report::Report& r, const std::string& go, int readers,
                     Clock::time_point end, bool cleanup) {
  nlohmann::json v{{"title", r.title}, {"notes", r.notes}, {"findings", r.findings}};
  (void)s.set(kVerdict, v.dump());
  (void)s.set(kDone, std::to_string(r.exit_code()));
  (void)s.set(kGo, go);
  auto until = std::min(end + 3s, Clock::now() + 5s);
  bool all_read = readers <= 0;
  while (!all_read && Clock::now() < until) {
    auto n = s.add(kRead, 0);
    if (!n) break;
    all_read = *n >= readers;
    if (!all_read) std::this_thread::sleep_for(20ms);
  }
  // A shared store (etcd) outlives the run: remove its keys once everyone has the verdict.
  if (cleanup && all_read)
    if (auto keys = s.list("dd/"))
      for (const auto& key : *keys) (void)s.remove(key);
}

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
    auto have = s.check(keys);
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
  auto dups = s.list("dd/dup/");
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
      auto ifs = guess_nccl_ifs(n.facts.net, n.lead.nccl_ifname_setting);
      if (!ifs.empty()) primary = ifs.front().name;
    }
    plan["nodes"].push_back(
        {{"index", i}, {"rank", n.lead.rank}, {"primary", primary}, {"endpoints", n.lead.endpoints}});
  }
  (void)s.set(kPlan, plan.dump());
  (void)s.set(kGo, "mesh");
  std::vector<std::string> mesh_keys;
  for (const auto& n : view.nodes)
    if (n.has_facts && !n.lead.endpoints.empty()) mesh_keys.push_back(k("mesh", n.lead.rank));
  if (cfg.self.has_facts)
    (void)s.set(k("mesh", cfg.self.rank), nlohmann::json(my_mesh(plan, cfg, end - 1s)).dump());
  view.mesh.ran = !mesh_keys.empty();
  (void)s.wait(mesh_keys, end - 500ms);
  auto have = s.check(mesh_keys);
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

JoinOutcome follow(rendezvous::Store& s, const JoinConfig& cfg, bool dup) {
  auto end = cfg.start + cfg.timeout + 5s;  // the leader decides; this is only the safety net
  auto go = s.get(kGo, end);
  if (!go) return alone(cfg, lost_master(cfg, "while waiting for the other nodes", go.error(), end));
  if (*go == "mesh" && cfg.self.has_facts && !dup) {
    auto plan = s.get(kPlan, end);
    if (!plan) return alone(cfg, lost_master(cfg, "while reading the mesh plan", plan.error(), end));
    try {
      auto probes = my_mesh(nlohmann::json::parse(*plan), cfg, cfg.start + cfg.timeout - 1s);
      (void)s.set(k("mesh", cfg.self.rank), nlohmann::json(probes).dump());
    } catch (const std::exception& e) {
      return alone(
          cfg,
          Finding{"cluster.join.store_error", Severity::fail, "the mesh plan was unreadable", {e.what()}});
    }
  }
  JoinOutcome o;
  if (!cfg.by_hand) {
    // Under a launcher only rank 0 prints: the others need to know the run is over, not the whole verdict
    // (fetching it on thousands of ranks costs more than the rest of the run).
    auto d = s.get(kDone, end);
    if (!d) return alone(cfg, lost_master(cfg, "while waiting for the verdict", d.error(), end));
    o.report.title = "distdoctor check — verdict printed by rank 0";
    (void)s.add(kRead, 1);
    return o;
  }
  auto v = s.get(kVerdict, end);
  if (!v) return alone(cfg, lost_master(cfg, "while waiting for the verdict", v.error(), end));
  try {
    auto j = nlohmann::json::parse(*v);
    o.report.title = j.value("title", "");
    o.report.notes = j.value("notes", std::vector<std::string>{});
    o.report.findings = j.value("findings", std::vector<Finding>{});
    o.report.notes.insert(o.report.notes.begin(),
                          fmt::format("this process: {} {} on {}; the verdict below is the master's",
                                      who(cfg.by_hand), cfg.self.rank, cfg.self.hostname));
  } catch (const std::exception& e) {
    return alone(
        cfg, Finding{"cluster.join.store_error", Severity::fail, "the verdict was unreadable", {e.what()}});
  }
  (void)s.add(kRead, 1);
  return o;
}

}  // namespace

std::string rank_ranges(const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + (j > i + 1    ? fmt::format("{}-{}", ranks[i], ranks[j])
                                       : j == i + 1 ? fmt::format("{},{}", ranks[i], ranks[j])
                                                    : std::to_string(ranks[i]));
    i = j + 1;
  }
  return out;
}

JoinOutcome run_join(rendezvous::Store& s, const JoinConfig& cfg) {
  auto end = cfg.start + cfg.timeout;
  auto claim = s.add(k("claim", cfg.self.rank), 1);
  if (!claim) return alone(cfg, lost_master(cfg, "while claiming a rank", claim.error(), end));
  bool dup = *claim > 1;
  nlohmann::json me = cfg.self;
  if (dup) {
    (void)s.set(fmt::format("dd/dup/{}/{}", cfg.self.rank, *claim), me.dump());
  } else {
    if (cfg.self.has_facts) {
      if (auto st = s.set(k("facts", cfg.self.rank), cfg.facts_json); !st)
        return alone(cfg, lost_master(cfg, "while publishing facts", st.error(), end));
    }
    if (auto st = s.set(k("member", cfg.self.rank), me.dump()); !st)
      return alone(cfg, lost_master(cfg, "while joining", st.error(), end));
  }
  JoinOutcome o = (cfg.self.rank == 0 && !dup) ? lead(s, cfg) : follow(s, cfg, dup);
  if (dup)
    o.report.add(Finding{"cluster.identity.rank_twice",
                         Severity::fail,
                         fmt::format("this process claimed {} {}, which another process already holds",
                                     who(cfg.by_hand), cfg.self.rank),
                         {},
                         "Give every node its own --node-rank.",
                         "",
                         cfg.self.rank});
  return o;
}

}  // namespace dd::cluster
