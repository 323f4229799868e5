// Cluster rule: every node is a distinct machine with a distinct hostname and addresses, and every rank was
// claimed once (two processes claiming one rank, or one machine joining twice, break the job's layout).
#include <fmt/format.h>

#include <set>

#include "rules/cluster_rule.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

std::string bare(const std::string& cidr) { return cidr.substr(0, cidr.find('/')); }

void check_claims(const ClusterView& v, std::vector<Finding>* out) {
  for (const auto& [rank, claimers] : v.dup_claims) {
    Finding f{"cluster.identity.rank_twice", Severity::fail,
              fmt::format("{} {} was claimed by {} processes", v.by_hand ? "node rank" : "rank", rank,
                          claimers.size())};
    for (const auto& m : claimers)
      f.evidence.push_back(
          fmt::format("{} pid {} ({})", m.hostname, m.pid, m.launcher.empty() ? "by hand" : m.launcher));
    f.fix = v.by_hand ? "Give every node its own --node-rank (0 .. nnodes-1); rank 0 is the master."
                      : "Each rank must be started once: check the launcher's task count and host list.";
    f.rank = rank;
    out->push_back(std::move(f));
  }
  // Under a launcher: two processes with the same local rank on one node.
  for (const auto& n : v.nodes) {
    std::map<int, std::vector<int>> by_local;
    for (const auto& m : v.members)
      if (std::find(n.ranks.begin(), n.ranks.end(), m.rank) != n.ranks.end())
        by_local[m.local_rank].push_back(m.rank);
    for (const auto& [lr, ranks] : by_local) {
      if (ranks.size() < 2) continue;
      Finding f{"cluster.identity.same_machine", Severity::fail,
                fmt::format("{} has {} processes with local rank {}: the machine joined twice", node_label(n),
                            ranks.size(), lr)};
      for (int r : ranks) f.evidence.push_back(fmt::format("rank {}", r));
      f.fix = "The host list names this machine twice (e.g. under two names); list each machine once.";
      out->push_back(std::move(f));
    }
  }
}

// One machine (boot id + network namespace) joined as several nodes; nodes sharing a kernel. Returns the
// nodes that are the same machine twice (the address and hostname checks skip them).
std::set<const ClusterNode*> check_machines(const ClusterView& v, std::vector<Finding>* out) {
  std::map<std::string, std::vector<const ClusterNode*>> by_machine, by_kernel;
  for (const auto& n : v.nodes) {
    if (n.lead.boot_id.empty()) continue;
    by_kernel[n.lead.boot_id].push_back(&n);
    by_machine[n.lead.boot_id + "|" + n.lead.netns].push_back(&n);
  }
  std::set<const ClusterNode*> twice;
  for (const auto& [key, ns] : by_machine) {
    if (ns.size() < 2) continue;
    std::vector<std::string> labels;
    for (auto* n : ns) labels.push_back(node_label(*n)), twice.insert(n);
    out->push_back(
        Finding{"cluster.identity.same_machine",
                Severity::fail,
                fmt::format("the same machine joined as {} nodes: {}", ns.size(), join_labels(labels)),
                {fmt::format("boot id {} and network namespace {} on all of them", ns[0]->lead.boot_id,
                             ns[0]->lead.netns)},
                "Run distdoctor once per node with distinct --node-rank values, on distinct machines."});
  }
  for (const auto& [key, ns] : by_kernel) {
    if (ns.size() < 2 || by_machine.size() == 1) continue;
    std::vector<std::string> labels;
    for (auto* n : ns)
      if (!twice.count(n)) labels.push_back(node_label(*n));
    if (labels.size() < 2) continue;
    out->push_back(Finding{"cluster.identity.shared_kernel", Severity::info,
                           fmt::format("nodes {} share one kernel (containers or namespaces on one host)",
                                       join_labels(labels))});
  }
  return twice;
}

void check_hostnames(const ClusterView& v, const std::set<const ClusterNode*>& twice,
                     std::vector<Finding>* out) {
  std::map<std::string, std::vector<const ClusterNode*>> by_name;
  for (const auto& n : v.nodes) by_name[n.hostname].push_back(&n);
  for (const auto& [name, ns] : by_name) {
    if (ns.size() < 2) continue;
    bool distinct = true;
    for (auto* n : ns) distinct = distinct && !twice.count(n);
    if (!distinct) continue;
    std::vector<std::string> labels;
    for (auto* n : ns) labels.push_back(fmt::format("node rank {}", n->node_rank));
    out->push_back(
        Finding{"cluster.identity.dup_hostname",
                Severity::fail,
                fmt::format("{} nodes have the hostname \"{}\"", ns.size(), name),
                {join_labels(labels)},
                "Give every node a unique hostname (hostnamectl set-hostname, or --hostname for "
                "containers). Frameworks that group ranks by hostname put these nodes' GPUs together "
                "and pick wrong device ids."});
  }
}

// Duplicate MACs on physical NICs (cloned VMs or images; veth/docker MACs are random) and duplicate
// addresses, skipping local-only interfaces (every docker0 is 172.17.0.1) and link-local ones.
void check_addresses(const ClusterView& v, const std::set<const ClusterNode*>& twice,
                     std::vector<Finding>* out) {
  std::map<std::string, std::vector<std::string>> by_addr, by_mac;
  std::map<std::string, bool> on_nccl_if;
  for (const auto& n : v.nodes) {
    if (!n.has_facts || twice.count(&n)) continue;
    auto nccl = nccl_socket_ifs(n.facts);
    for (const auto& i : n.facts.net.interfaces) {
      if ((i.kind == "ethernet" || i.kind == "bond") && !i.mac.empty() && i.mac != "00:00:00:00:00:00")
        by_mac[i.mac].push_back(fmt::format("{} {}", node_label(n), i.name));
      if (iface_is_local_only(i)) continue;
      std::vector<std::string> addrs = i.ipv4;
      for (const auto& a : i.ipv6)
        if (a.rfind("fe80", 0) != 0) addrs.push_back(a);
      for (const auto& a : addrs) {
        by_addr[bare(a)].push_back(fmt::format("{} {}", node_label(n), i.name));
        if (!nccl.empty() && nccl.front().name == i.name) on_nccl_if[bare(a)] = true;
      }
    }
  }
  for (const auto& [mac, where] : by_mac)
    if (where.size() > 1)
      out->push_back(
          Finding{"cluster.identity.dup_mac", Severity::warn,
                  fmt::format("MAC address {} is on {} nodes", mac, where.size()), where,
                  "Nodes cloned from one VM or image kept the same MAC: give each a unique MAC, or "
                  "switches and ARP will send one node's traffic to the other."});
  for (const auto& [addr, where] : by_addr) {
    if (where.size() < 2) continue;
    out->push_back(
        Finding{"cluster.identity.dup_ip", on_nccl_if[addr] ? Severity::fail : Severity::warn,
                fmt::format("address {} is on {} nodes", addr, where.size()), where,
                "Every node needs its own address on the network the job uses; fix the static "
                "addresses or DHCP reservations, or exclude this interface with NCCL_SOCKET_IFNAME."});
  }
}

std::vector<Finding> check_identity(const ClusterView& v) {
  std::vector<Finding> out;
  check_claims(v, &out);
  const std::set<const ClusterNode*> twice = check_machines(v, &out);
  check_hostnames(v, twice, &out);
  check_addresses(v, twice, &out);
  if (out.empty() || (out.size() == 1 && out[0].severity == Severity::info))
    out.push_back(Finding{
        "cluster.identity.ok", Severity::ok,
        fmt::format("{} distinct nodes, hostnames and addresses; every rank claimed once", v.nodes.size())});
  return out;
}

}  // namespace

ClusterRule cluster_identity_rule() {
  return {
      "cluster.identity",
      check_identity,
      {{"cluster.identity.rank_twice", "A rank was claimed by two processes",
        "Two processes joined with the same rank (by hand: the same --node-rank). One of them would wait "
        "forever in a real job, or both would talk to the wrong peers."},
       {"cluster.identity.same_machine", "The same machine joined twice",
        "Two nodes report the same boot id and network namespace: they are one machine, started twice "
        "(two --node-rank values on one host, or a host list that names a machine twice)."},
       {"cluster.identity.shared_kernel", "Nodes share a kernel",
        "Several nodes run on one kernel (containers or network namespaces on one host). Fine for tests; "
        "shared-memory and GPU visibility then depend on the container set-up."},
       {"cluster.identity.dup_hostname", "Two nodes have the same hostname",
        "Frameworks (MindSpore, some PyTorch launchers, HCCL) group ranks by hostname to compute local "
        "ranks and device ids. Two machines with one name are treated as one, so ranks pick the same GPUs "
        "or wait for peers that never come."},
       {"cluster.identity.dup_ip", "Two nodes have the same address",
        "The same IP address is configured on two nodes. Connections to it reach whichever answers ARP "
        "first; on the interface NCCL uses this breaks bootstrap."},
       {"cluster.identity.dup_mac", "Two nodes have the same MAC address",
        "A physical NIC on two nodes reports the same MAC: typically VMs cloned from one image. Traffic for "
        "one "
        "reaches the other at random."},
       {"cluster.identity.ok", "Node identities are distinct", "No duplicate names, addresses or ranks."}}};
}

}  // namespace dd::rules
