// The short collective pass for `check`: 7 collectives at 1 MiB plus one all_reduce bandwidth point.
#include "comm/check_pass.h"

#include <cstdio>

#include "comm/bench.h"
#include "comm/engine/collective.h"
#include "comm/engine/dtype.h"
#include "comm/engine/engine.h"
#include "comm/op_json.h"
#include "report/comm_ids.h"
#include "rules/engine_choice.h"

namespace dd::comm {

namespace {

nlohmann::json measurements_json(const RunOutcome& run, const std::string& engine) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& o : run.ops) ops.push_back(op_outcome_json(o));
  nlohmann::json transports = nlohmann::json::object();
  for (const auto& [t, n] : run.nccl_log.transports) transports[t] = n;
  return {{"engine", engine},
          {"library", run.library},
          {"world", run.world},
          {"ok", run.ok},
          {"wall_s", run.wall_s},
          {"ops", ops},
          {"nccl_transports", transports},
          {"timing", timing_json(run.timing)}};
}

}  // namespace

std::vector<report::Finding> run_check_pass(const CheckPassOptions& opt, const NodeContext& node) {
  return run_check_pass_measured(opt, node).findings;
}

namespace {

// Every collective once at 1 MiB with its data verified, then (bandwidth_bytes > 0) one unchecked
// all_reduce bandwidth point.
RunOptions check_pass_run(const CheckPassOptions& opt, const probe::NodeFacts& facts) {
  RunOptions ro;
  ro.engine =
      opt.engine ? *opt.engine : rules::choose_engine(facts, "", opt.nccl_lib, nccl_engine_built()).engine;
  ro.nproc = opt.nproc;
  ro.threads = opt.threads;
  ro.nccl_lib = opt.nccl_lib;
  ro.init_timeout = opt.init_timeout;
  ro.self_exe = opt.self_exe;
  // A 1 MiB alltoall or send/recv needs no more than a few P2P channels, and each channel to each peer is a
  // connection set up on the first P2P op (on 4x H100 NVLink, 1.15 s for the alltoall with NCCL's default).
  // Only when the user has not chosen: the job's own setting is what the pass should exercise.
  if (ro.engine == rules::EngineKind::nccl && !facts.env.count("NCCL_MAX_P2P_NCHANNELS"))
    ro.env.push_back({"NCCL_MAX_P2P_NCHANNELS", std::to_string(kPassP2pChannels)});
  for (const auto& c : collectives()) {
    OpRequest r;
    r.coll = c.coll;
    r.bytes = 1 << 20;
    r.warmup = 0;
    r.iters = 1;
    r.timeout = std::chrono::milliseconds(5000);
    r.measured_deadline = true;
    r.dtype = c.coll == Coll::all_reduce ? Dtype::bf16 : Dtype::f32;
    ro.ops.push_back(r);
  }
  if (opt.bandwidth_bytes > 0) {
    OpRequest r;
    r.coll = Coll::all_reduce;
    r.bytes = opt.bandwidth_bytes;
    r.warmup = 2;
    r.iters = 5;
    r.check = false;
    r.timeout =
        opt.bandwidth_timeout.count() > 0 ? opt.bandwidth_timeout : auto_timeout(opt.bandwidth_bytes * 2, 8);
    r.measured_deadline = opt.bandwidth_timeout.count() == 0;
    ro.ops.push_back(r);
  }
  return ro;
}

}  // namespace

CheckPassResult run_check_pass_measured(const CheckPassOptions& opt, const NodeContext& node) {
  const RunOptions ro = check_pass_run(opt, node.facts);
  if (ro.engine == rules::EngineKind::gloo && !gloo_engine_built()) {  // said, not failed
    report::Finding f{
        report::comm_id::kCollectivesNotRun,
        report::Severity::warn,
        "collectives not run: the pass needs the Gloo engine here, and this build has none",
        {gloo_missing_reason()},
        "Run the check where NCCL can use the GPUs (the NCCL engine needs no Gloo), or use a build "
        "with Gloo: `make` on Debian (libgloo-dev), or `make portable DD_GLOO_SRC=<Gloo source "
        "tree>`."};
    f.area = "comm";
    return {{f}, {{"ok", false}, {"engine", "gloo"}, {"not_run", gloo_missing_reason()}}, {}, {}};
  }
  RunOutcome run = run_collectives(ro, node);
  std::vector<report::Finding> out = run.findings;
  if (run.ok) {
    report::Finding f;
    f.id = report::comm_id::kCollectivesOk;
    f.severity = report::Severity::ok;
    f.area = "comm";
    f.title = std::to_string(collectives().size()) + " collectives verified element by element on " +
              std::to_string(run.world) + " ranks (" + rules::engine_name(ro.engine) + ")";
    f.evidence = {run.library};
    char b[128];
    snprintf(b, sizeof b, "wall time %.2f s", run.wall_s);
    f.evidence.push_back(b);
    out.push_back(f);
    if (ro.engine == rules::EngineKind::nccl)
      for (auto& lf : link_findings(run, intra_node_limit(link_facts_from(node.facts.gpu), run.world)))
        out.push_back(lf);
    if (!run.nccl_log.transports.empty()) {
      report::Finding t;
      t.id = report::comm_id::kTransportDefault;
      t.severity = report::Severity::info;
      t.area = "comm";
      t.title = "NCCL chose";
      for (const auto& [name, n] : run.nccl_log.transports) t.title += " " + name + " x" + std::to_string(n);
      out.push_back(t);
    }
  }
  CheckPassResult res{out, measurements_json(run, rules::engine_name(ro.engine)), run.timing, {}};
  for (const auto& [k, v] : ro.env) {
    res.measurements["pass_env"][k] = v;
    res.notes.push_back("collectives: " + k + "=" + v + " for this pass only (" + kPassEnvWhy + ")");
  }
  return res;
}

}  // namespace dd::comm
