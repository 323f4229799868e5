// Join protocol entry (see join.h): claim a rank, publish, then lead (rank 0) or follow. Keys: cfg.keys.
#include "cluster/join.h"

#include <fmt/format.h>

#include <algorithm>

#include "cluster/join_steps.h"
#include "cluster/node_count.h"
#include "common/json_limits.h"
#include "common/safe_text.h"
#include "rendezvous/meeting_join.h"

namespace dd::cluster {

using report::Finding;
using report::Severity;
using namespace std::chrono_literals;
using namespace join_detail;

namespace {

// By hand, a node whose rank is past the master's last one (another --nnodes) is never counted there: it
// names the difference itself. The master names every other difference in its verdict (join_arrivals.cc).
std::optional<Finding> past_master_world(rendezvous::Store& s, const JoinConfig& cfg, Clock::time_point end) {
  if (!cfg.by_hand || cfg.self.rank == 0) return std::nullopt;
  auto text = s.get(cfg.keys.member(0), end);  // published before the master waits for anyone
  if (!text) return std::nullopt;              // the wait for the verdict names a lost master
  auto lead = dd::parse_record<Member>(*text);
  if (!lead || lead->world <= 0 || cfg.self.rank < lead->world) return std::nullopt;
  auto f = nnodes_differ({.id = "cluster.join.nnodes_differ"}, {cfg.self.rank, cfg.world, cfg.self.hostname},
                         {0, lead->world, lead->hostname}, "from node rank 0's member record in the store");
  if (f)
    f->evidence.push_back(
        fmt::format("node rank {} is past the master's last node rank ({}): the master does "
                    "not wait for it",
                    cfg.self.rank, lead->world - 1));
  return f;
}

JoinOutcome follow(rendezvous::Store& s, const JoinConfig& cfg, bool dup) {
  // The leader decides; this is only the safety net (the cross-node pass extends the run).
  auto end = cfg.start + cfg.timeout + 5s + (cfg.cross_node ? cfg.cross_node->max_budget : 0ms);
  const rendezvous::MeetingKeys& keys = cfg.keys;
  if (!dup)
    if (auto f = past_master_world(s, cfg, end)) return alone(cfg, std::move(*f));
  auto go = s.get(keys.at("go"), end);
  if (!go) return alone(cfg, lost_master(cfg, "while waiting for the other nodes", go.error(), end));
  if (*go == "mesh" && cfg.self.has_facts && !dup) {
    auto plan = s.get(keys.at("plan"), end);
    if (!plan) return alone(cfg, lost_master(cfg, "while reading the mesh plan", plan.error(), end));
    try {
      auto probes = my_mesh(dd::parse_json(*plan), cfg, cfg.start + cfg.timeout - 1s);
      (void)s.set(keys.of("mesh", cfg.self.rank), json_text(nlohmann::json(probes)), end);
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
    auto d = s.get(keys.at("done"), end);
    if (!d) return alone(cfg, lost_master(cfg, "while waiting for the verdict", d.error(), end));
    o.report.title = "distdoctor check — verdict printed by rank 0";
    (void)s.add(keys.at("read"), 1, end);
    return o;
  }
  auto v = s.get(keys.at("verdict"), end);
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
  (void)s.add(keys.at("read"), 1, end);
  return o;
}

}  // namespace

JoinOutcome run_join(rendezvous::Store& s, const JoinConfig& cfg) {
  auto end = cfg.start + cfg.timeout;
  auto claim = rendezvous::claim_rank(s, cfg.keys, cfg.self.rank, end);
  if (!claim) return alone(cfg, lost_master(cfg, "while claiming a rank", claim.error(), end));
  bool dup = *claim > 1;
  nlohmann::json me = cfg.self;
  if (dup) {
    (void)s.set(cfg.keys.dup(cfg.self.rank, *claim), json_text(me), end);
  } else {
    // One round trip (publish_member): the live key (gone with our connection), the facts, then the member
    // key the master counts, so a member's facts are always there before it.
    std::vector<rendezvous::StoreOp> facts;
    if (cfg.self.has_facts)
      facts.push_back(rendezvous::StoreOp::set(cfg.keys.of("facts", cfg.self.rank), cfg.facts_json));
    if (auto st = rendezvous::publish_member(s, cfg.keys, cfg.self.rank, json_text(me), facts, end); !st)
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
