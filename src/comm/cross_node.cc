// Planning the cross-node pass (see cross_node.h): engine and ranks per node, the "verify" phase (fixed
// small sizes) and the "bandwidth" phase, whose sizes and deadlines come from the verify phase's speed.
#include "comm/cross_node.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "comm/engine.h"
#include "comm/plan.h"
#include "comm/run_setup.h"
#include "rules/engine_choice.h"

namespace dd::comm {

namespace {

using rules::CrossNodeView;
using rules::XnNodeResult;
using rules::XnOp;
constexpr uint64_t kVerifyBytes = 256 << 10;
constexpr double kTargetSeconds = 0.15;  // one timed iteration of a bandwidth op

// One engine for the whole job: NCCL only when every node would choose it (rules::choose_engine).
void choose_job_engine(const rules::ClusterView& view, CrossNodeView& xn, const CrossNodeSettings& s) {
  xn.engine = "nccl";
  for (const auto& n : view.nodes) {
    auto c = rules::choose_engine(n.facts, s.engine, s.nccl_lib, nccl_engine_built());
    if (c.engine != "nccl") {
      xn.engine = "gloo";
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

nlohmann::json verify_plan(const nlohmann::json& nodes, const CrossNodeSettings& s) {
  nlohmann::json ops = nlohmann::json::array();
  const auto small_deadline = std::chrono::milliseconds(10000);  // 256 KiB: seconds even at 1 Mb/s
  for (const auto& c : collectives()) {
    OpRequest r;
    r.coll = c.coll;
    r.bytes = kVerifyBytes;
    r.warmup = 0;
    r.iters = 1;
    r.timeout = small_deadline;
    r.dtype = c.coll == Coll::all_reduce ? Dtype::bf16 : Dtype::f32;
    ops.push_back(op_entry(r, "all"));
  }
  for (const auto& [path, p] : pair_paths(nodes))
    ops.push_back(op_entry(pair_op(p.first, p.second, kVerifyBytes, small_deadline), path));
  return {{"phase", "verify"}, {"init_timeout_ms", s.init_timeout.count()}, {"ops", ops}};
}

// The slowest participating node's view of op i of the previous phase: seconds per iteration, 0 unknown.
double measured_seconds(const rules::XnPhase& phase, size_t i) {
  double worst = 0;
  for (const auto& n : phase.nodes) {
    if (i >= n.ops.size() || !n.ops[i].participates) continue;
    if (!n.ops[i].complete) return 0;
    worst = std::max(worst, n.ops[i].time_us * 1e-6);
  }
  return worst;
}

// Bandwidth phase: each path at the size one iteration needs ~kTargetSeconds at its measured speed; the
// deadline is three times the expected time of the whole op plus 2 s.
nlohmann::json bandwidth_plan(const nlohmann::json& verify, const rules::XnPhase& done, bool gloo) {
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
    const double expected_s = double(bytes) / bytes_per_s * (r.warmup + r.iters);
    r.timeout = std::chrono::milliseconds(int64_t(expected_s * 3000) + 2000);
    ops.push_back(op_entry(r, path));
  }
  return {{"phase", "bandwidth"}, {"ops", ops}};
}

// The second communicator's deadline from how long the first phase took: 3x the slowest node's wall time.
int64_t measured_init_ms(const rules::XnPhase& done, const CrossNodeSettings& s) {
  double wall = 0;
  for (const auto& n : done.nodes) wall = std::max(wall, n.wall_s);
  return std::clamp<int64_t>(int64_t(wall * 3000), 3000, s.init_timeout.count());
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
    nodes.push_back({{"lead", n.lead.rank}, {"first_rank", first}, {"nproc", nproc}});
    first += nproc;
  }
  xn.world = first;
  nlohmann::json plan;
  if (xn.phases.empty()) {
    plan = verify_plan(nodes, s);
  } else if (xn.phases.size() == 1) {
    const auto& done = xn.phases.back();
    for (const auto& n : done.nodes)
      if (!n.reported || !n.ok) return nullptr;
    plan = bandwidth_plan(verify_plan(nodes, s), done, xn.engine == "gloo");
    if (plan.is_null()) return nullptr;
    plan["init_timeout_ms"] = measured_init_ms(done, s);
  } else {
    return nullptr;
  }
  plan["engine"] = xn.engine;
  plan["world"] = xn.world;
  plan["nodes"] = nodes;
  plan["prefix"] = fmt::format("dd/xn/{}/", xn.phases.size());
  return plan;
}

std::chrono::milliseconds cross_node_phase_budget(const nlohmann::json& plan) {
  int64_t ms = plan.value("init_timeout_ms", int64_t(20000)) + 5000;
  for (const auto& o : plan["ops"]) ms += op_from_json(o).timeout.count();
  return std::chrono::milliseconds(ms);
}

}  // namespace dd::comm
