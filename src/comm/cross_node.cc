// Planning the cross-node pass (see cross_node.h): engine and ranks per node, the "verify" phase (fixed
// small sizes) and the "bandwidth" phase, whose sizes and deadlines come from the verify phase's speed.
#include "comm/cross_node.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "comm/engine/engine.h"
#include "comm/run/op_deadline.h"
#include "comm/run/plan.h"
#include "comm/run/run_setup.h"
#include "rules/cluster_rule.h"
#include "rules/engine_choice.h"

namespace dd::comm {

namespace {

using rules::CrossNodeView;
using rules::XnNodeResult;
using rules::XnOp;
constexpr uint64_t kWarmupBytes = 64 << 10;
constexpr uint64_t kVerifyBytes = 1 << 20;  // every collective, checked
constexpr uint64_t kPairBytes = 256 << 10;  // every path, checked
constexpr double kTargetSeconds = 0.15;     // one timed iteration of a bandwidth op

// One engine for the whole job: NCCL only when every node would choose it (rules::choose_engine).
void choose_job_engine(const rules::ClusterView& view, CrossNodeView& xn, const CrossNodeSettings& s) {
  xn.engine = rules::EngineKind::nccl;
  for (const auto& n : view.nodes) {
    auto c = rules::choose_engine(n.facts, s.engine, s.nccl_lib, nccl_engine_built());
    if (c.engine != rules::EngineKind::nccl) {
      xn.engine = rules::EngineKind::gloo;
      xn.engine_reason = fmt::format("{} on {}({})", c.reason, n.hostname, n.node_rank);
      return;
    }
    xn.engine_reason = c.reason;
  }
}

nlohmann::json op_entry(const OpRequest& r, const std::string& path) {
  nlohmann::json j = op_to_json(r);
  j["path"] = path;
  return j;
}

OpRequest pair_op(int a, int b, uint64_t bytes, std::chrono::milliseconds timeout) {
  OpRequest r;
  r.coll = Coll::sendrecv;
  r.bytes = bytes;
  r.pair_a = a;
  r.pair_b = b;
  r.warmup = 1;
  r.iters = 3;
  r.timeout = timeout;
  return r;
}

// The paths measured: one pair inside each node with 2+ ranks, then a ring of the nodes' first ranks.
std::vector<std::pair<std::string, std::pair<int, int>>> pair_paths(const nlohmann::json& nodes) {
  std::vector<std::pair<std::string, std::pair<int, int>>> out;
  for (const auto& n : nodes)
    if (n["nproc"].get<int>() >= 2)
      out.push_back({"intra", {n["first_rank"].get<int>(), n["first_rank"].get<int>() + 1}});
  const size_t count = nodes.size();
  for (size_t i = 0; count >= 2 && i < (count == 2 ? 1 : count); ++i)
    out.push_back(
        {"inter", {nodes[i]["first_rank"].get<int>(), nodes[(i + 1) % count]["first_rank"].get<int>()}});
  return out;
}

// The slowest participating node's view of op i of a phase: seconds per iteration, 0 unknown.
double measured_seconds(const rules::XnPhase& phase, size_t i) {
  double worst = 0;
  for (const auto& n : phase.nodes) {
    if (i >= n.ops.size() || !n.ops[i].participates) continue;
    if (!n.ops[i].complete) return 0;
    worst = std::max(worst, n.ops[i].time_us * 1e-6);
  }
  return worst;
}

// Warm-up: a small all_reduce over every rank and a small sendrecv on every path. Its deadlines are the one
// fixed assumption of the pass (64 KiB take well under a second even at 1 Mb/s); the rest is measured.
nlohmann::json warmup_plan(const nlohmann::json& nodes, const CrossNodeSettings& s) {
  nlohmann::json ops = nlohmann::json::array();
  const auto fixed = std::chrono::milliseconds(10000);
  OpRequest ar;
  ar.bytes = kWarmupBytes, ar.warmup = 1, ar.iters = 2, ar.check = false, ar.timeout = fixed;
  ops.push_back(op_entry(ar, "all"));
  for (const auto& [path, p] : pair_paths(nodes)) {
    OpRequest r = pair_op(p.first, p.second, kWarmupBytes, fixed);
    r.iters = 2, r.check = false;
    ops.push_back(op_entry(r, path));
  }
  return {{"phase", "warmup"}, {"init_timeout_ms", s.init_timeout.count()}, {"ops", ops}};
}

// Verify: every collective once with every element checked, then each path at a larger size; each op's
// deadline scales the warm-up's measured time (all_reduce's bus speed for the collectives, the path's own
// time for the pairs) by the size.
nlohmann::json verify_plan(const nlohmann::json& nodes, const rules::XnPhase& warm, int world) {
  nlohmann::json ops = nlohmann::json::array();
  const double t_ar = measured_seconds(warm, 0);
  if (t_ar <= 0) return nullptr;
  const double bus_per_s = kWarmupBytes * coll_info(Coll::all_reduce).busbw_factor(world) / t_ar;
  for (const auto& c : collectives()) {
    OpRequest r;
    r.coll = c.coll;
    r.bytes = kVerifyBytes;
    r.warmup = 0;
    r.iters = 1;
    r.dtype = c.coll == Coll::all_reduce ? Dtype::bf16 : Dtype::f32;
    r.timeout = derived_deadline(kVerifyBytes * std::max(1.0, c.busbw_factor(world)) / bus_per_s, runs_of(r));
    ops.push_back(op_entry(r, "all"));
  }
  size_t i = 1;
  for (const auto& [path, p] : pair_paths(nodes)) {
    const double t = measured_seconds(warm, i++);
    if (t <= 0) return nullptr;
    OpRequest r = pair_op(p.first, p.second, kPairBytes, {});
    r.timeout = derived_deadline(t * kPairBytes / kWarmupBytes, runs_of(r));
    ops.push_back(op_entry(r, path));
  }
  return {{"phase", "verify"}, {"ops", ops}};
}

// Bandwidth phase: each path at the size one iteration needs ~kTargetSeconds at its measured speed.
nlohmann::json bandwidth_plan(const nlohmann::json& verify, const rules::XnPhase& done, bool gloo) {
  if (verify.is_null()) return nullptr;
  const uint64_t cap = gloo ? 64ull << 20 : 1ull << 30;
  nlohmann::json ops = nlohmann::json::array();
  const auto& vops = verify["ops"];
  for (size_t i = 0; i < vops.size(); ++i) {
    std::string path = vops[i]["path"];
    OpRequest r = op_from_json(vops[i]);
    if (path == "all" && r.coll != Coll::all_reduce) continue;
    double t = measured_seconds(done, i);
    if (t <= 0) return nullptr;
    double bytes_per_s = double(r.bytes) / t;
    uint64_t want = uint64_t(bytes_per_s * kTargetSeconds);
    uint64_t bytes =
        std::clamp<uint64_t>(want ? uint64_t(1) << uint64_t(std::log2(double(want))) : 0, 1ull << 20, cap);
    r.bytes = bytes;
    r.warmup = 1;
    r.iters = 3;
    r.check = false;
    r.timeout = derived_deadline(double(bytes) / bytes_per_s, runs_of(r));
    ops.push_back(op_entry(r, path));
  }
  return {{"phase", "bandwidth"}, {"ops", ops}};
}

// The next communicator's deadline from how long the last one took to set up (a phase's wall time less its
// operations' time, on the slowest node): three times that plus 2 s, within [3 s, --init-timeout].
int64_t measured_init_ms(const rules::XnPhase& done, const CrossNodeSettings& s) {
  double init_s = 0;
  for (const auto& n : done.nodes) {
    double ops_s = 0;
    for (const auto& o : n.ops) ops_s += o.time_us * 1e-6 * o.runs;
    init_s = std::max(init_s, n.wall_s - ops_s);
  }
  return std::clamp<int64_t>(int64_t(init_s * 3000) + 2000, 3000, s.init_timeout.count());
}

}  // namespace

nlohmann::json cross_node_plan(const rules::ClusterView& view, CrossNodeView& xn,
                               const CrossNodeSettings& s) {
  if (xn.phases.empty()) choose_job_engine(view, xn, s);
  RunOptions layout_opt;
  layout_opt.engine = xn.engine;
  nlohmann::json nodes = nlohmann::json::array();
  int first = 0;
  for (const auto& n : view.nodes) {
    int nproc = local_rank_count(layout_opt, n.facts);
    nodes.push_back(
        {{"lead", n.lead.rank}, {"first_rank", first}, {"nproc", nproc}, {"label", rules::node_label(n)}});
    first += nproc;
  }
  xn.world = first;
  nlohmann::json plan;
  const size_t done = xn.phases.size();
  if (done > 0)
    for (const auto& n : xn.phases.back().nodes)
      if (!n.reported || !n.ok) return nullptr;
  if (done == 0) {
    plan = warmup_plan(nodes, s);
  } else if (done == 1) {
    plan = verify_plan(nodes, xn.phases[0], xn.world);
  } else if (done == 2) {
    plan = bandwidth_plan(verify_plan(nodes, xn.phases[0], xn.world), xn.phases[1],
                          xn.engine == rules::EngineKind::gloo);
  }
  if (plan.is_null()) return nullptr;
  if (done > 0) plan["init_timeout_ms"] = measured_init_ms(xn.phases.back(), s);
  plan["engine"] = rules::engine_name(xn.engine);
  plan["world"] = xn.world;
  plan["nodes"] = nodes;
  return plan;
}

std::chrono::milliseconds cross_node_phase_budget(const nlohmann::json& plan) {
  int64_t ms = plan.value("init_timeout_ms", int64_t(20000)) + 5000;
  for (const auto& o : plan["ops"]) ms += op_from_json(o).timeout.count();
  return std::chrono::milliseconds(ms);
}

}  // namespace dd::comm
