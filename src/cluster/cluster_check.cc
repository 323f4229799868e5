// Multi-node check flow (see cluster_check.h): the meeting (token, store: meeting.h) -> mesh listeners ->
// join -> one verdict.
#include "cluster/cluster_check.h"

#include <fmt/format.h>

#include <optional>

#include "cluster/join.h"
#include "cluster/meeting.h"
#include "cluster/mesh.h"
#include "cluster/session.h"
#include "cluster/token_handoff.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "report/report.h"

namespace dd::cluster {

using report::Finding;
using report::Severity;
using Clock = std::chrono::steady_clock;

namespace {

std::string process_title(const JobSpec& spec) {
  return fmt::format("distdoctor check — {} {}", spec.by_hand ? "node rank" : "rank", spec.rank);
}

// By hand, the first node says where it listens and shows the command every other node runs.
std::string announce_master(const CheckArgs& args, const std::string& master, const TokenChoice& token,
                            const ClusterCheckSinks& sinks) {
  const ClusterArgs& c = args.cluster;
  TokenHandoff h = hand_off_token(token.token, token.generated, sinks.paste_on_terminal, master);
  say(sinks.leader, ProgressKind::progress,
      fmt::format("master of a {}-node check listening on {} (--deadline {:.0f} s).", c.nnodes, master,
                  c.timeout_s));
  if (sinks.paste_command)
    sinks.paste_command(fmt::format(
        "{}Run on every other node (node rank 1 .. {}; the token goes in the environment, where `ps` does "
        "not show it):\n\n"
        "  {} distdoctor check --nnodes {} --master {} --node-rank R\n\n",
        h.where.empty() ? "" : h.where + "\n", c.nnodes - 1, h.assignment, c.nnodes, master));
  return master;
}

JoinConfig make_join_config(const CheckArgs& args, const ClusterPlan& plan, const probe::NodeFacts& facts,
                            Member self, uint64_t tag, Clock::time_point start,
                            const ClusterCheckSinks& sinks) {
  const JobSpec& spec = plan.spec;
  JoinConfig cfg;
  cfg.world = spec.world;
  cfg.by_hand = spec.by_hand;
  cfg.self = std::move(self);
  if (cfg.self.has_facts) cfg.facts_json = json_text(nlohmann::json(facts));
  cfg.timeout = std::chrono::milliseconds(static_cast<int64_t>(args.cluster.timeout_s * 1000));
  cfg.start = start;
  cfg.job_tag = tag;
  cfg.bandwidth_bytes =
      args.cluster.mesh_bandwidth ? static_cast<size_t>(args.cluster.bandwidth_mib) << 20 : 0;
  cfg.expected_hosts = spec.expected_hosts;
  cfg.nproc_per_node = args.nproc_per_node;
  if (spec.rank == 0) cfg.progress = sinks.leader;
  return cfg;
}

// Under a launcher rank 0 has the one verdict; other ranks only what happened to them alone.
ClusterCheckOutcome outcome_of(JoinOutcome& o, const JobSpec& spec) {
  bool alone = o.report.title.empty();
  if (alone) o.report.title = process_title(spec);
  // The other ranks share rank 0's verdict: they print nothing and exit 0; rank 0 carries the exit code.
  if (!spec.by_hand && !o.leader && !alone) return {};
  o.report.facts = o.leader ? std::move(o.full) : nlohmann::json(nullptr);
  return {std::move(o.report)};
}

}  // namespace

Result<ClusterPlan> plan_cluster_check(const CheckArgs& args, const EnvMap& env) {
  return plan_cluster(args.cluster, env);
}

Result<ClusterCheckOutcome> run_cluster_check(const CheckArgs& args, const ClusterPlan& plan,
                                              const probe::NodeFacts& facts, const ClusterCheckSinks& sinks,
                                              const CrossNodeHooks* xn) {
  const auto start = Clock::now();
  const JobSpec& spec = plan.spec;
  const auto deadline =
      start + std::chrono::milliseconds(static_cast<int64_t>(args.cluster.timeout_s * 1000));
  auto meeting = open_meeting(
      MeetingPlace{args.cluster, spec, facts, "distdoctor", deadline, sinks.progress, sinks.store_log});
  if (!meeting) return meeting.error();
  std::vector<std::string> notes = spec.notes;
  notes.push_back(fmt::format("deadline: --deadline {:.0f} s for the whole run", args.cluster.timeout_s));
  notes.insert(notes.end(), meeting->notes.begin(), meeting->notes.end());
  if (meeting->failure) {
    report::Report r;
    r.title = process_title(spec);
    r.notes = std::move(notes);
    r.add(std::move(*meeting->failure));
    return ClusterCheckOutcome{std::move(r)};
  }
  const TokenChoice& tok = meeting->token;
  const rendezvous::OpenedStore& opened = meeting->opened;

  Member self = make_self(plan, facts);
  std::unique_ptr<MeshServer> mesh;
  const uint64_t tag = fnv1a(spec.job_id + "|" + tok.token);
  if (self.has_facts) {
    auto m = MeshServer::start(mesh_candidates(facts.net, self.nccl_ifname_setting), tag, spec.rank);
    if (m) {
      mesh = std::move(*m);
      self.endpoints = mesh->endpoints();
    }
  }
  JoinConfig cfg = make_join_config(args, plan, facts, std::move(self), tag, start, sinks);
  std::optional<CrossNodeHooks> hooks;  // the collective workers meet through this run's store and token
  if (xn) {
    hooks = *xn;
    hooks->store_url = opened.url;
    hooks->store_token = tok.token;
    cfg.cross_node = &*hooks;
  }
  cfg.notes = std::move(notes);
  cfg.cleanup = opened.kind == "etcd";  // etcd outlives the run: the leader removes the run's keys
  cfg.master_desc = meeting->announce_master.empty()
                        ? meeting->url
                        : announce_master(args, meeting->announce_master, tok, sinks);
  JoinOutcome o = run_join(*opened.store, cfg);
  if (mesh) mesh->stop();
  return outcome_of(o, spec);
}

}  // namespace dd::cluster
