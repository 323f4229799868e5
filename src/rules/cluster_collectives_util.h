// Helpers shared by the cross-node pass's findings (cluster_collectives*.cc): which node holds a rank,
// which NIC a node used, whether IB is up, and the bandwidth findings per path.
#pragma once
#include <string>
#include <vector>

#include "rules/cluster_collectives.h"

namespace dd::rules {

// Node index holding global rank r in a phase's results; -1 none.
int node_of_rank(const XnPhase& ph, int r);
// The NIC node i used between nodes: NCCL's own choice from its log, else the interface NCCL would use.
std::string node_nic(const ClusterNode& n, const XnNodeResult& res);
// An InfiniBand/RoCE port is ACTIVE on the node.
bool has_active_ib(const probe::NodeFacts& f);
// Bandwidth of every path of the bandwidth phase, slow node pairs and pairs far below their NICs. A pair is
// called slow only when it was slow in `equal_sizes` too (the verify phase: every pair at one size), where
// that phase measured it: the bandwidth phase sizes each pair by its own verify speed, so one slow sample
// on a busy host would otherwise make itself look slower still.
std::vector<report::Finding> bandwidth_findings(const ClusterView& view, const CrossNodeView& xn,
                                                const XnPhase& ph, const XnPhase* equal_sizes);

}  // namespace dd::rules
