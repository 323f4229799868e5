// One node's part of a cross-node phase (see cross_node.h): its ranks run through run_collectives with the
// cluster run's store, and the outcome becomes a plain XnNodeResult for the leader.
#include <fmt/format.h>

#include "comm/cross_node.h"
#include "comm/run/gone_watch.h"
#include "comm/run/plan.h"
#include "rules/engine_choice.h"
#include "rules/rule_util.h"

namespace dd::comm {

namespace {

using rules::XnNodeResult;
using rules::XnOp;

RunOptions xn_run_options(const nlohmann::json& plan, const nlohmann::json& me, const CrossNodeSettings& s,
                          const probe::NodeFacts& facts) {
  RunOptions ro;
  ro.engine = rules::engine_from_name(plan.value("engine", "gloo")).value_or(rules::EngineKind::gloo);
  ro.nproc = me.value("nproc", 0);
  ro.world = plan.value("world", 0);
  ro.first_rank = me.value("first_rank", 0);
  ro.store_url = s.store_url;
  ro.store_token = s.store_token;
  ro.store_prefix = plan.value("prefix", "dd/xn/");
  ro.init_timeout = std::chrono::milliseconds(plan.value("init_timeout_ms", int64_t(20000)));
  if (ro.engine == rules::EngineKind::nccl) ro.nccl_lib = rules::choose_nccl_lib(facts, s.nccl_lib).path;
  // Gloo binds where NCCL would: GLOO_SOCKET_IFNAME when set (make_plan), else NCCL's first interface.
  if (ro.engine == rules::EngineKind::gloo && !facts.env.count("GLOO_SOCKET_IFNAME")) {
    auto ifs = rules::nccl_socket_ifs(facts);
    if (!ifs.empty()) ro.gloo_iface = ifs.front().name;
  }
  for (const auto& o : plan["ops"]) ro.ops.push_back(op_from_json(o));
  return ro;
}

XnOp xn_op(const OpOutcome& o, const std::string& path, int first, int nproc) {
  XnOp x;
  x.coll = coll_info(o.req.coll).name;
  x.path = path;
  x.bytes = o.bytes ? o.bytes : o.req.bytes;
  x.pair_a = o.req.pair_a;
  x.pair_b = o.req.pair_b;
  auto local = [&](int r) { return r >= first && r < first + nproc; };
  x.participates = o.req.pair_a < 0 || local(o.req.pair_a) || local(o.req.pair_b);
  x.complete = o.complete;
  x.time_us = o.time_us;
  x.busbw_gbps = o.busbw;
  x.wrong = o.wrong;
  x.timeout_s = o.req.timeout.count() / 1000.0;
  x.runs = o.req.warmup + o.req.iters + (o.req.check ? 1 : 0);
  for (const auto& rr : o.ranks)
    if (rr.wrong > 0)
      x.wrong_ranks.push_back(fmt::format("rank {}: {} of {} elements wrong", rr.rank, rr.wrong, rr.checked));
  return x;
}

}  // namespace

XnNodeResult cross_node_run(const nlohmann::json& plan, int self_rank, const std::string& node_label,
                            const CrossNodeSettings& s, const NodeContext& node) {
  XnNodeResult res;
  res.reported = true;
  nlohmann::json me;
  for (const auto& n : plan["nodes"])
    if (n.value("lead", -1) == self_rank) me = n;
  if (me.is_null()) return res;  // not in the plan (cannot happen for a joined node)
  const RunOptions ro = xn_run_options(plan, me, s, node.facts);
  res.first_rank = ro.first_rank;
  res.nproc = ro.nproc;
  for (int i = 0; i < ro.nproc; ++i) res.devices.push_back(i);
  const RunOutcome run = run_collectives(ro, node);
  res.ok = run.ok;
  res.library = run.library;
  res.wall_s = run.wall_s;
  for (size_t i = 0; i < run.ops.size() && i < plan["ops"].size(); ++i)
    res.ops.push_back(xn_op(run.ops[i], plan["ops"][i].value("path", "all"), ro.first_rank, ro.nproc));
  for (auto f : run.findings) {
    f.node = node_label;
    res.findings.push_back(std::move(f));
  }
  res.nccl_network = run.nccl_log.network;
  res.nccl_bootstrap = run.nccl_log.bootstrap;
  res.nccl_nics = run.nccl_log.nics;
  res.nccl_warnings = run.nccl_log.warnings;
  res.nccl_transports = run.nccl_log.transports;
  return res;
}

void cross_node_release_ranks(rendezvous::Store& s, const nlohmann::json& plan, int first_rank, int nproc) {
  const std::string prefix = plan.value("prefix", "dd/xn/");
  std::string who = nproc > 1 ? fmt::format("ranks {}-{}", first_rank, first_rank + nproc - 1)
                              : fmt::format("rank {}", first_rank);
  for (const auto& n : plan["nodes"])
    if (n.value("first_rank", -1) == first_rank && n.contains("label")) who += " on " + n.value("label", "");
  // Every other node's supervisor stops its ranks at once (GoneWatch); then the exit barrier is released.
  (void)s.set(GoneWatch::key(prefix), who, rendezvous::Clock::now() + std::chrono::seconds(2));
  for (int r = first_rank; r < first_rank + nproc; ++r)
    (void)s.set(prefix + "exit/" + std::to_string(r), "1",
                rendezvous::Clock::now() + std::chrono::seconds(2));
}

}  // namespace dd::comm
