// Cluster rule: which interface each node's NCCL and Gloo will use, and whether those share a subnet.
#include <arpa/inet.h>
#include <fmt/format.h>

#include "nccl/if_select.h"
#include "rules/cluster_rule.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

// "198.18.0.0/24" for "198.18.0.7/24"; "" if not IPv4.
std::string subnet_of(const std::string& cidr) {
  auto slash = cidr.find('/');
  if (slash == std::string::npos) return "";
  in_addr a{};
  if (inet_pton(AF_INET, cidr.substr(0, slash).c_str(), &a) != 1) return "";
  int len = std::atoi(cidr.c_str() + slash + 1);
  if (len < 0 || len > 32) return "";
  uint32_t mask = len == 0 ? 0 : htonl(~uint32_t{0} << (32 - len));
  a.s_addr &= mask;
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &a, buf, sizeof(buf));
  return fmt::format("{}/{}", buf, len);
}

// What Gloo binds to on node n, for the summary line. Without GLOO_SOCKET_IFNAME, PyTorch's Gloo binds to
// what the hostname resolves to, and falls back to loopback when that fails: other nodes then cannot connect
// and the job hangs in its first barrier (a finding when the job has several nodes).
std::string gloo_choice(const ClusterNode& n, size_t nodes, const std::vector<nccl::IfCandidate>& ifs,
                        std::vector<Finding>* out) {
  std::string gloo_set;
  if (auto it = n.facts.env.find("GLOO_SOCKET_IFNAME"); it != n.facts.env.end()) gloo_set = it->second;
  const auto& ra = n.facts.host.resolved_addrs;
  if (!gloo_set.empty()) return "GLOO_SOCKET_IFNAME=" + gloo_set;
  bool loop = !ra.empty() && (ra.front().rfind("127.", 0) == 0 || ra.front() == "::1");
  if (nodes > 1 && (ra.empty() || loop))
    out->push_back(Finding{
        "cluster.net.gloo_loopback",
        Severity::warn,
        fmt::format("Gloo on {} would use loopback: hostname {} {}", node_label(n), n.facts.host.hostname,
                    ra.empty() ? "does not resolve" : "resolves to " + ra.front()),
        {},
        fmt::format("export GLOO_SOCKET_IFNAME={} on every node (or map the hostname to "
                    "the node's address in /etc/hosts)",
                    ifs.empty() ? std::string("<interface>") : ifs.front().name)});
  return fmt::format("hostname {} -> {}", n.facts.host.hostname,
                     ra.empty() ? "(does not resolve)" : ra.front());
}

std::vector<Finding> check_network(const ClusterView& v) {
  std::vector<Finding> out;
  std::map<std::string, std::vector<std::string>> subnets;
  std::vector<std::string> lines;
  for (const auto& n : v.nodes) {
    if (!n.has_facts) continue;
    auto ifs = nccl_socket_ifs(n.facts);
    const std::string gloo = gloo_choice(n, v.nodes.size(), ifs, &out);
    if (ifs.empty()) {
      out.push_back(Finding{
          "cluster.net.no_interface",
          Severity::fail,
          fmt::format("NCCL will find no socket interface on {}", node_label(n)),
          {fmt::format("NCCL_SOCKET_IFNAME={}",
                       socket_ifname_setting(n.facts).empty() ? "(unset)" : socket_ifname_setting(n.facts))},
          "Set NCCL_SOCKET_IFNAME to an interface that is up on this node (ip -br addr)."});
      continue;
    }
    const auto& i = ifs.front();
    lines.push_back(fmt::format("{}: NCCL {} {}; Gloo {}", node_label(n), i.name, i.addr, gloo));
    std::string sn = i.iface->ipv4.empty() ? "(IPv6 only)" : subnet_of(i.iface->ipv4.front());
    subnets[sn].push_back(fmt::format("{} {}", node_label(n), i.name));
  }
  if (!lines.empty())
    out.push_back(Finding{"cluster.net.interfaces", Severity::info,
                          "interfaces NCCL and Gloo will use per node", lines});
  if (subnets.size() > 1)
    out.push_back(
        Finding{"cluster.net.subnets",
                Severity::warn,
                fmt::format("NCCL's interfaces are on {} different subnets", subnets.size()),
                {describe_groups(subnets)},
                "Unless these subnets are routed to each other, point NCCL_SOCKET_IFNAME at the "
                "network all nodes share (the mesh results below show which one reaches all peers)."});
  else if (subnets.size() == 1)
    out.push_back(Finding{"cluster.net.subnets", Severity::ok,
                          fmt::format("NCCL's interfaces share subnet {}", subnets.begin()->first)});
  return out;
}

}  // namespace

ClusterRule cluster_network_rule() {
  return {
      "cluster.network",
      check_network,
      {{"cluster.net.interfaces", "Interfaces NCCL and Gloo will use",
        "For each node: the interface NCCL's socket/bootstrap code picks (NCCL_SOCKET_IFNAME, else ib*, "
        "else the first interface that is not docker/lo/virbr) and what Gloo binds to (GLOO_SOCKET_IFNAME, "
        "else the address the hostname resolves to)."},
       {"cluster.net.subnets", "NCCL interfaces on different subnets",
        "The interfaces NCCL will use are not on one subnet. That works only when routed; a typical cause is "
        "NCCL picking a management or container interface on some nodes."},
       {"cluster.net.gloo_loopback", "Gloo would bind to loopback",
        "GLOO_SOCKET_IFNAME is unset and the hostname does not resolve, or resolves to a loopback address "
        "(the Debian/Ubuntu default 127.0.1.1). PyTorch's Gloo backend then binds to loopback and peers on "
        "other nodes cannot connect: init_process_group or the first barrier hangs. Set "
        "GLOO_SOCKET_IFNAME to the interface NCCL uses, or fix /etc/hosts."},
       {"cluster.net.no_interface", "NCCL finds no socket interface",
        "No interface matches NCCL_SOCKET_IFNAME (or none is up and running), so NCCL fails with "
        "'Bootstrap : no socket interface found'."}}};
}

}  // namespace dd::rules
