// Join protocol entry (see join.h): claim a rank, publish, then lead (rank 0) or follow. Keys: join_steps.h.
#include "cluster/join.h"

#include <fmt/format.h>

#include <algorithm>

#include "cluster/join_steps.h"
#include "common/json_limits.h"
#include "common/safe_text.h"

namespace dd::cluster {

using report::Finding;
using report::Severity;
using namespace std::chrono_literals;
using namespace join_detail;

namespace {

JoinOutcome follow(rendezvous::Store& s, const JoinConfig& cfg, bool dup) {
  // The leader decides; this is only the safety net (the cross-node pass extends the run).
  auto end = cfg.start + cfg.timeout + 5s + (cfg.cross_node ? cfg.cross_node->max_budget : 0ms);
  auto go = s.get(kGo, end);
  if (!go) return alone(cfg, lost_master(cfg, "while waiting for the other nodes", go.error(), end));
  if (*go == "mesh" && cfg.self.has_facts && !dup) {
    auto plan = s.get(kPlan, end);
    if (!plan) return alone(cfg, lost_master(cfg, "while reading the mesh plan", plan.error(), end));
    try {
      auto probes = my_mesh(dd::parse_json(*plan), cfg, cfg.start + cfg.timeout - 1s);
      (void)s.set(k("mesh", cfg.self.rank), json_text(nlohmann::json(probes)), end);
    } catch (const std::exception& e) {
      return alone(
          cfg,
          Finding{"cluster.join.store_error", Severity::fail, "the mesh plan was unreadable", {e.what()}});
    }
    if (cfg.cross_node) {
      follow_cross_node(s, *cfg.cross_node, cfg.self.rank, cfg.start + cfg.timeout + 5s);
      end = std::max(end, Clock::now() + 15s);
    }
  }
  JoinOutcome o;
  if (!cfg.by_hand) {
    // Under a launcher only rank 0 prints: the others need to know the run is over, not the whole verdict
    // (fetching it on thousands of ranks costs more than the rest of the run).
    auto d = s.get(kDone, end);
    if (!d) return alone(cfg, lost_master(cfg, "while waiting for the verdict", d.error(), end));
    o.report.title = "distdoctor check — verdict printed by rank 0";
    (void)s.add(kRead, 1, end);
    return o;
  }
  auto v = s.get(kVerdict, end);
  if (!v) return alone(cfg, lost_master(cfg, "while waiting for the verdict", v.error(), end));
  try {
    auto j = dd::parse_json(*v);
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
  (void)s.add(kRead, 1, end);
  return o;
}

}  // namespace

JoinOutcome run_join(rendezvous::Store& s, const JoinConfig& cfg) {
  auto end = cfg.start + cfg.timeout;
  auto claim = s.add(k("claim", cfg.self.rank), 1, end);
  if (!claim) return alone(cfg, lost_master(cfg, "while claiming a rank", claim.error(), end));
  bool dup = *claim > 1;
  nlohmann::json me = cfg.self;
  if (dup) {
    (void)s.set(fmt::format("dd/dup/{}/{}", cfg.self.rank, *claim), json_text(me), end);
  } else {
    // One round trip (Store::pipeline): the live key (gone with our connection: see gone_ranks), the
    // facts, then the member key the master counts, so a member's facts are always there before it.
    std::vector<rendezvous::StoreOp> ops{rendezvous::StoreOp::set(k("~live", cfg.self.rank), "1")};
    if (cfg.self.has_facts)
      ops.push_back(rendezvous::StoreOp::set(k("facts", cfg.self.rank), cfg.facts_json));
    ops.push_back(rendezvous::StoreOp::set(k("member", cfg.self.rank), json_text(me)));
    if (auto st = s.pipeline(ops, end); !st)
      return alone(cfg, lost_master(cfg, cfg.self.has_facts ? "while publishing facts" : "while joining",
                                    st.error(), end));
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
