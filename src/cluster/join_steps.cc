// Join protocol helpers (see join_steps.h): lost-master findings, the mesh step, the verdict hand-off.
#include "cluster/join_steps.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "cluster/mesh.h"
#include "cluster/session.h"
#include "common/safe_text.h"

namespace dd::cluster::join_detail {

using report::Finding;
using report::Severity;
using namespace std::chrono_literals;

double secs(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string who(bool by_hand) { return by_hand ? "node rank" : "rank"; }

JoinOutcome alone(const JoinConfig& cfg, Finding f) {
  JoinOutcome o;
  o.report.notes = cfg.notes;
  f.rank = cfg.self.rank;
  o.report.add(std::move(f));
  return o;
}

Finding lost_master(const JoinConfig& cfg, const char* phase, const Error& e, Clock::time_point deadline) {
  // The master's verdict on our token comes with the first answer (open_store): a refusal, not a loss.
  if (e.kind == ErrorKind::auth) return store_finding(e, cfg.master_desc, secs(cfg.timeout), false);
  bool timed_out = Clock::now() >= deadline - 50ms;
  Finding f;
  f.severity = Severity::fail;
  if (timed_out) {
    f.id = "cluster.join.no_answer";
    f.title = fmt::format("no answer from the master {} {} within {:.0f} s", cfg.master_desc, phase,
                          secs(Clock::now() - cfg.start));
    f.fix =
        "The master (node rank 0) did not finish in time: look at its output; it names the missing nodes. "
        "Start every node within the " +
        cfg.timeout_flag + " window.";
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

void publish_verdict(rendezvous::Store& s, const rendezvous::MeetingKeys& keys, const report::Report& r,
                     const std::string& go, int readers, Clock::time_point end, bool cleanup) {
  nlohmann::json v{{"title", r.title}, {"notes", r.notes}, {"findings", r.findings}};
  // At most 3 s past the run's deadline, but never less than 2 s from now: a master that reaches this point
  // late (a slow mesh test) must still publish, or the nodes waiting for its verdict see it vanish.
  auto until = std::max(Clock::now() + 2s, std::min(end + 3s, Clock::now() + 5s));
  // In this order, in one round trip: a node woken by "go" finds the verdict there.
  (void)s.pipeline({rendezvous::StoreOp::set(keys.at("verdict"), json_text(v)),
                    rendezvous::StoreOp::set(keys.at("done"), std::to_string(r.exit_code())),
                    rendezvous::StoreOp::set(keys.at("go"), go)},
                   until);
  bool all_read = readers <= 0;
  while (!all_read && Clock::now() < until) {
    auto n = s.add(keys.at("read"), 0, until);
    if (!n) break;
    all_read = *n >= readers;
    if (!all_read) std::this_thread::sleep_for(20ms);
  }
  // A shared store (etcd) outlives the run: remove its keys once everyone has the verdict.
  if (cleanup && all_read)
    if (auto all = s.list(keys.prefix(), until))
      for (const auto& key : *all) (void)s.remove(key, until);
}

}  // namespace dd::cluster::join_detail
