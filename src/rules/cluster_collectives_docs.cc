// Docs of the cross-node collective pass's findings (check --nnodes N --collectives): they come from the
// run's measurements (rules::cluster_collectives_findings, called by the leader), so this table row has no
// rule function body.
#include "rules/cluster_collectives.h"

namespace dd::rules {

static std::vector<report::Finding> xn_no_findings(const ClusterView&) { return {}; }

ClusterRule cluster_collectives_rule() {
  return {
      "cluster.collectives",
      xn_no_findings,
      {{"cluster.collectives.ok", "Every collective verified across all nodes",
        "One communicator over every rank of every node (NCCL on GPU nodes, Gloo otherwise) ran all seven "
        "collectives once, and every element of every rank's output was compared with the expected value."},
       {"cluster.collectives.node_silent", "A node stopped answering mid-collective",
        "The leader planned a phase of the cross-node pass and every other node published its result, but "
        "this node sent nothing before the grace period ran out: its distdoctor or the node itself stopped "
        "(killed, crashed, frozen, lost its network) in the middle of the collectives. The failures the "
        "other nodes report at the same time are a consequence of it."},
       {"cluster.collectives.bandwidth", "Bandwidth of every class of path",
        "Measured after the verification: one pair of ranks inside each node, a ring of sendrecv pairs "
        "between the first ranks of neighbouring nodes (so one slow node, NIC or cable shows in the two "
        "pairs that touch it), and an all_reduce over every rank. Sizes and deadlines come from the speed "
        "each path showed in the verification phase. The percentage compares with the rate the NICs "
        "advertise (IB/RoCE port rate, else the Ethernet link speed)."},
       {"cluster.collectives.slow_pair", "A node pair far below the others",
        "A pair of neighbouring nodes reached less than a third of the bandwidth of the best pair, both in "
        "the bandwidth phase and in the verification phase (where every pair moves the same size, so one "
        "slow sample on a busy host does not decide). With three or more nodes, a node that is part of every "
        "slow pair is named: its NIC, cable, switch port or a "
        "traffic shaper on it is the likely cause."},
       {"cluster.collectives.below_link", "A node pair far below its NICs' rate",
        "NCCL between these two nodes reached less than 40% of the line rate their NICs advertise; healthy "
        "nodes reach 80-95%. Check the transport NCCL chose, GPU-NIC affinity and the port's errors."},
       {"cluster.collectives.transport", "The network NCCL used between nodes",
        "What NCCL's own log says it chose between nodes: IB (InfiniBand or RoCE) or Socket, with the "
        "devices or interfaces, and the bootstrap interface."},
       {"cluster.collectives.socket_not_ib", "NCCL used sockets where InfiniBand is up",
        "NCCL fell back to TCP sockets between nodes although active InfiniBand/RoCE ports exist: usually "
        "NCCL_IB_DISABLE, a missing libibverbs or /dev/infiniband in the container, or an NCCL_IB_HCA that "
        "matches nothing. Sockets are several times slower."},
       {"cluster.collectives.not_run", "The cross-node pass did not run",
        "A node published no facts (so its ranks could not be planned) or the run's deadline had passed."}},
  };
}

}  // namespace dd::rules
