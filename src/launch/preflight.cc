// run_preflight (see preflight.h): node rules alone, or cluster::run_join under the keys "launch/preflight/".
#include "launch/preflight.h"

#include "cluster/join.h"
#include "cluster/mesh.h"
#include "common/safe_text.h"
#include "rules/rule.h"

namespace dd::launch {

PreflightResult run_preflight(const JoinedNodes& joined, const LaunchArgs& args,
                              const cluster::ClusterPlan& plan, const probe::NodeFacts& facts, int nproc) {
  PreflightResult out;
  if (joined.nnodes == 1) {
    rules::CheckOptions co;
    co.nproc_per_node = nproc;
    out.report.findings = rules::run_node_rules(facts, co);
  } else {
    cluster::JoinConfig cfg;
    cfg.world = joined.nnodes;
    cfg.by_hand = true;  // the join's ranks are the node agents
    cfg.self = cluster::make_self(plan, facts);
    cfg.self.rank = cfg.self.node_rank = joined.node_rank;
    cfg.self.local_rank = 0;
    cfg.self.local_world = 1;
    cfg.self.has_facts = true;
    cfg.facts_json = json_text(nlohmann::json(facts));
    cfg.timeout = std::chrono::milliseconds(int64_t(args.cluster.timeout_s * 1000));
    cfg.timeout_flag = "--join-timeout";
    cfg.job_tag = cluster::fnv1a(joined.job.job_id + "|" + joined.token.token);
    cfg.nproc_per_node = nproc;
    cfg.master_desc = joined.store_url;
    std::unique_ptr<cluster::MeshServer> mesh;
    auto m = cluster::MeshServer::start(cluster::mesh_candidates(facts.net, cfg.self.nccl_ifname_setting),
                                        cfg.job_tag, joined.node_rank);
    if (m) {
      mesh = std::move(*m);
      cfg.self.endpoints = mesh->endpoints();
    }
    cfg.keys = kLaunchKeys.sub("preflight");  // the nodes' own join, beside the launch's keys
    cluster::JoinOutcome o = cluster::run_join(*joined.store, cfg);
    if (mesh) mesh->stop();
    out.report = std::move(o.report);
  }
  out.report.title = "distdoctor launch — preflight";
  out.stop = out.report.verdict() == report::Verdict::fail;
  return out;
}

}  // namespace dd::launch
