// The cross-node collective pass as plain data (what every node measured, gathered by the leader) and the
// rule that turns it into findings naming the node, rank, GPU and NIC involved. comm/cross_node.* fills it,
// cluster/ carries it through the store, rules/cluster_collectives*.cc read it.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probe/facts.h"
#include "report/finding.h"
#include "rules/cluster_rule.h"
#include "rules/engine_choice.h"

namespace dd::rules {

// One operation of the pass as one node saw it (the node's own ranks).
struct XnOp {
  std::string coll;  // "all_reduce", "sendrecv", ...
  std::string
      path;  // "all" (every rank), "intra" (two ranks of one node), "inter" (first ranks of two nodes)
  uint64_t bytes = 0;
  int pair_a = -1, pair_b = -1;  // global ranks of a sendrecv pair
  bool participates = true;      // this node holds a rank of the op
  bool complete = false;         // every local participating rank reported a result
  double time_us = 0;            // slowest local rank
  double busbw_gbps = 0;
  int64_t wrong = 0;
  std::vector<std::string> wrong_ranks;  // "rank 3: 12 of 65536 elements wrong"
  double timeout_s = 0;                  // the deadline the op ran under
  int runs = 1;                          // runs of the op (warm-up, timed, checked)
};

// One node's result of one phase.
struct XnNodeResult {
  bool reported = false;  // the node published a result before the leader's deadline
  bool alive = false;     // not reported, but its heartbeat still moved: its ranks are stuck mid-collective
  int first_rank = 0, nproc = 0;
  std::vector<int> devices;  // CUDA device of each local rank (NCCL)
  bool ok = false;
  std::string library;
  double wall_s = 0;
  std::vector<XnOp> ops;
  std::vector<report::Finding> findings;  // the node's own comm findings (local rank numbers are global)
  std::string nccl_network, nccl_bootstrap;
  std::vector<std::string> nccl_nics, nccl_warnings;  // nics: "eth0:198.18.0.1", "mlx5_0:1/IB"
  std::map<std::string, int> nccl_transports;
};

struct XnPhase {
  std::string name;  // "verify" (warm-up + every collective checked), "bandwidth"
  double budget_s = 0;
  std::vector<XnNodeResult> nodes;  // by node index (ClusterView::nodes)
};

struct CrossNodeView {
  EngineKind engine = EngineKind::nccl;
  std::string engine_reason;
  int world = 0;
  std::vector<XnPhase> phases;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(XnOp, coll, path, bytes, pair_a, pair_b, participates,
                                                complete, time_us, busbw_gbps, wrong, wrong_ranks, timeout_s,
                                                runs)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(XnNodeResult, reported, alive, first_rank, nproc, devices, ok,
                                                library, wall_s, ops, findings, nccl_network, nccl_bootstrap,
                                                nccl_nics, nccl_warnings, nccl_transports)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(XnPhase, name, budget_s, nodes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CrossNodeView, engine, engine_reason, world, phases)

// Findings of the pass: nodes that fell silent, each node's own failures (named by node and GPU), wrong
// data, slow node pairs (against the best pair and the NICs' advertised rate), NCCL's inter-node transport.
std::vector<report::Finding> cluster_collectives_findings(const ClusterView& view, const CrossNodeView& xn);

// Link rate a node's interface advertises, in Gb/s (IB/RoCE port rate, else net speed_mbps); 0 unknown.
double advertised_gbps(const probe::NodeFacts& f, const std::string& ifname);

ClusterRule cluster_collectives_rule();  // cluster_collectives_docs.cc (docs of the findings above)

}  // namespace dd::rules
