// Findings of the cross-node collective pass (see cluster_collectives.h): silent nodes, each node's own
// failures, the verified collectives, and the transport NCCL chose between nodes. Bandwidth per path:
// cluster_collectives_bw.cc.
#include "rules/cluster_collectives.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/comm_ids.h"
#include "report/first_failure.h"
#include "rules/cluster_collectives_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

std::string ranks_of(const XnNodeResult& n) {
  if (n.nproc <= 1) return fmt::format("rank {}", n.first_rank);
  return fmt::format("ranks {}-{}", n.first_rank, n.first_rank + n.nproc - 1);
}

// A node that published nothing for a phase: it stopped (killed, crashed, frozen) or lost the store. What
// the other nodes saw at the same time (their ranks failing) is its consequence, shown as evidence.
Finding silent_node(const ClusterView& view, const XnPhase& ph, size_t i, const std::string& ranks) {
  std::vector<std::string> ev;
  for (size_t j = 0; j < ph.nodes.size(); ++j) {
    if (!ph.nodes[j].reported) continue;
    ev.push_back(fmt::format("{}: {} after {:.1f} s", node_label(view.nodes[j]),
                             ph.nodes[j].ok ? "finished" : "failed", ph.nodes[j].wall_s));
    for (const auto& f : ph.nodes[j].findings) ev.push_back(fmt::format("  {}: {}", f.node, f.title));
  }
  ev.push_back(fmt::format("the {} phase had a deadline of {:.0f} s", ph.name, ph.budget_s));
  const std::string what =
      ph.nodes[i].alive ? "is stuck in the cross-node {} phase: its distdoctor is alive but its ranks "
                          "did not finish while the other nodes timed out waiting for them"
                        : "stopped answering during the cross-node {} phase: no result while the other "
                          "nodes finished or failed";
  Finding f{
      "cluster.collectives.node_silent", Severity::fail,
      fmt::format("{} ({}) ", node_label(view.nodes[i]), ranks) + fmt::format(fmt::runtime(what), ph.name),
      ev,
      "That node's distdoctor (or the node) stopped mid-collective: look at its own output, dmesg (OOM "
      "killer, Xid), and whether it can still reach the others; the other nodes' failures that follow "
      "are a consequence."};
  f.node = node_label(view.nodes[i]);
  return f;
}

// The unreported nodes of a phase, the cause first (report::first_failure): a node that stopped (no result,
// no heartbeat) leads; a node still beating but unfinished then only waited for its ranks: a consequence
// (info), never the cause.
void add_silent_nodes(std::vector<Finding>& out, const ClusterView& view, const XnPhase& ph) {
  std::vector<size_t> silent;
  std::vector<report::Failure> failures;
  for (size_t i = 0; i < ph.nodes.size(); ++i)
    if (!ph.nodes[i].reported) {
      silent.push_back(i);
      failures.push_back({.consequence = ph.nodes[i].alive});
    }
  const auto cause = report::first_failure(failures, {.consequence_may_lead = false});
  std::optional<Finding> stopped;
  if (cause) {
    stopped = silent_node(view, ph, silent[*cause], ranks_of(ph.nodes[silent[*cause]]));
    out.push_back(*stopped);
  }
  for (size_t k = 0; k < silent.size(); ++k) {
    if (cause && k == *cause) continue;
    const size_t i = silent[k];
    Finding f = silent_node(view, ph, i, ranks_of(ph.nodes[i]));
    if (stopped && ph.nodes[i].alive) {
      const std::string cause_node = node_label(view.nodes[silent[*cause]]);
      f.title = fmt::format("{} ({}) was still waiting for {}'s ranks when the {} phase ended", f.node,
                            ranks_of(ph.nodes[i]), cause_node, ph.name);
      report::mark_consequence(f, *stopped, cause_node);
    }
    out.push_back(std::move(f));
  }
}

// A node's own failure, with its NCCL warnings when it could not join the communicator.
Finding node_failure(const std::string& label, const XnNodeResult& n, Finding f) {
  f.node = label;  // the leader's name for the node, whatever the node called itself
  if (f.id == report::comm_id::kInitTimeout || f.id == report::comm_id::kError)
    for (size_t k = 0; k < n.nccl_warnings.size() && k < 6; ++k)
      f.evidence.push_back("NCCL WARN " + n.nccl_warnings[k]);
  f.title = f.node + ": " + f.title;
  return f;
}

// A rank of this node that could not run (stopped, stuck in the kernel) or died: the cause of a phase that
// failed on several nodes. The other nodes' ranks timed out or lost their connections waiting for it.
bool rank_cause(const std::string& id) {
  return id == report::comm_id::kWorkerStopped || id == report::comm_id::kWorkerStuck ||
         id == report::comm_id::kWorkerDied;
}

// The failures of one phase's nodes, the cause first (report::first_failure): when one node names a rank that
// stopped or died, the others' failures follow as its consequences (after it, lowered to info, saying what
// they follow).
void add_node_failures(std::vector<Finding>& out, std::vector<Finding> failures) {
  std::vector<report::Failure> seen;
  for (const auto& f : failures) seen.push_back({.severity = f.severity, .consequence = !rank_cause(f.id)});
  if (const auto cause = report::first_failure(seen, {.consequence_may_lead = false})) {
    std::rotate(failures.begin(), failures.begin() + long(*cause), failures.begin() + long(*cause) + 1);
    for (size_t k = 1; k < failures.size(); ++k)
      if (!rank_cause(failures[k].id)) report::mark_consequence(failures[k], failures[0]);
  }
  for (auto& f : failures) out.push_back(std::move(f));
}

const XnPhase* find_phase(const CrossNodeView& xn, const std::string& name) {
  for (const auto& ph : xn.phases)
    if (ph.name == name) return &ph;
  return nullptr;
}

Finding verified(const ClusterView& view, const CrossNodeView& xn, const XnPhase& ph) {
  Finding f{"cluster.collectives.ok", Severity::ok,
            fmt::format("every collective verified element by element on {} ranks across {} nodes ({})",
                        xn.world, view.nodes.size(), engine_name(xn.engine))};
  f.evidence.push_back(std::string("engine: ") + engine_name(xn.engine) + " (" + xn.engine_reason + ")");
  for (size_t i = 0; i < ph.nodes.size(); ++i)
    f.evidence.push_back(
        fmt::format("{}: {}, {}", node_label(view.nodes[i]), ranks_of(ph.nodes[i]),
                    ph.nodes[i].library.empty() ? engine_name(xn.engine) : ph.nodes[i].library));
  return f;
}

// The network NCCL used between nodes, as each node's log says; warns about sockets where IB is up.
std::vector<Finding> transport_findings(const ClusterView& view, const XnPhase& ph) {
  std::vector<Finding> out;
  Finding t{"cluster.collectives.transport", Severity::info, "NCCL between nodes:"};
  std::vector<std::string> socket_with_ib;
  for (size_t i = 0; i < ph.nodes.size(); ++i) {
    const auto& n = ph.nodes[i];
    if (n.nccl_network.empty()) continue;
    std::string nics;
    for (const auto& nic : n.nccl_nics) nics += (nics.empty() ? "" : " ") + nic;
    t.evidence.push_back(fmt::format("{}: network {} via {}{}", node_label(view.nodes[i]), n.nccl_network,
                                     nics.empty() ? "?" : nics,
                                     n.nccl_bootstrap.empty() ? "" : ", bootstrap " + n.nccl_bootstrap));
    if (t.title.find(" " + n.nccl_network) == std::string::npos) t.title += " " + n.nccl_network;
    if (n.nccl_network == "Socket" && has_active_ib(view.nodes[i].facts))
      socket_with_ib.push_back(node_label(view.nodes[i]));
  }
  if (t.evidence.empty()) return out;
  out.push_back(t);
  if (!socket_with_ib.empty())
    out.push_back(Finding{"cluster.collectives.socket_not_ib", Severity::warn,
                          "NCCL used sockets between nodes although InfiniBand/RoCE ports are active on " +
                              join_labels(socket_with_ib),
                          t.evidence,
                          "NCCL did not load or use its IB transport: check NCCL_IB_DISABLE, NCCL_NET, "
                          "NCCL_IB_HCA, that libibverbs and the rdma devices (/dev/infiniband) are visible "
                          "inside the job's container, and the NCCL log (NCCL_DEBUG=INFO NET)."});
  return out;
}

}  // namespace

std::vector<Finding> cluster_collectives_findings(const ClusterView& view, const CrossNodeView& xn) {
  std::vector<Finding> out;
  if (xn.phases.empty()) {
    out.push_back(Finding{"cluster.collectives.not_run",
                          Severity::warn,
                          "the cross-node collective pass did not run",
                          {"some nodes published no facts, or the run's deadline had passed"},
                          "Raise --deadline, and make sure every node's distdoctor probes its facts."});
    return out;
  }
  for (const auto& ph : xn.phases) {
    bool silent = false, all_ok = true;
    for (const auto& n : ph.nodes) silent = silent || !n.reported;
    add_silent_nodes(out, view, ph);
    std::vector<Finding> failures;
    for (const auto& n : ph.nodes) {
      all_ok = all_ok && n.reported && n.ok;
      if (!silent)
        for (const auto& f : n.findings)
          failures.push_back(node_failure(node_label(view.nodes[&n - ph.nodes.data()]), n, f));
    }
    add_node_failures(out, std::move(failures));
    if (!all_ok) break;
  }
  const XnPhase* verify = find_phase(xn, "verify");
  const bool verify_ok = verify && std::all_of(verify->nodes.begin(), verify->nodes.end(),
                                               [](const XnNodeResult& n) { return n.reported && n.ok; });
  if (verify_ok) out.insert(out.begin(), verified(view, xn, *verify));
  for (auto& f : transport_findings(view, xn.phases.front())) out.push_back(std::move(f));
  if (const XnPhase* bw = find_phase(xn, "bandwidth"))
    for (auto& f : bandwidth_findings(view, xn, *bw, verify)) out.push_back(std::move(f));
  for (auto& f : out) f.area = "cluster";
  return out;
}

}  // namespace dd::rules
