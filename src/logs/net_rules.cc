// Cross-rank rules over what the logs say about the network and versions: ranks that disagree (transport,
// plugin, NCCL version, driver, GDR, bootstrap interface) and suspicious interfaces (loopback, a bond, Socket
// although IB devices exist). One row of the log rule table (log_rules.h).
#include <fmt/format.h>

#include <set>

#include "common/units.h"
#include "logs/log_rules.h"
#include "rules/rule_util.h"

namespace dd::logs {

namespace {

using report::Finding;
using report::Severity;

bool bad_iface(const std::string& n) { return rules::iface_name_is_local_only(n); }

void net_disagreement_rules(const LogsResult& r, std::vector<Finding>& out) {
  add_disagreement(
      r, out, "logs.net.transport_mismatch", Severity::warn, "network transport",
      [](const ProcessFacts& p) { return p.network; },
      "All ranks should use the same inter-node network (e.g. all IB). A rank on Socket is usually missing "
      "IB devices/drivers in its container, or has NCCL_IB_DISABLE / NCCL_NET set differently.");
  add_disagreement(
      r, out, "logs.net.plugin_mismatch", Severity::warn, "net plugin",
      [](const ProcessFacts& p) { return p.net_plugin; },
      "Install the same NCCL net plugin (or none) on every node; set NCCL_NET_PLUGIN the same everywhere.");
  add_disagreement(
      r, out, "logs.nccl.version_mismatch", Severity::fail, "NCCL version",
      [](const ProcessFacts& p) { return p.nccl_version; },
      "Use one NCCL build on all nodes (same framework wheel or container image); mixed versions can hang "
      "or fail in init.");
  add_disagreement(
      r, out, "logs.cuda.driver_mismatch", Severity::warn, "CUDA driver version",
      [](const ProcessFacts& p) {
        return p.cuda_driver > 0 ? cuda_version_in_words(p.cuda_driver) : std::string();
      },
      "Nodes run different NVIDIA drivers; align them to rule out driver-specific behaviour.");
  add_disagreement(
      r, out, "logs.net.gdr_mismatch", Severity::info, "GPU Direct RDMA",
      [](const ProcessFacts& p) { return p.gdr < 0 ? std::string()
                                         : p.gdr   ? "on"
                                                   : "off"; }, "");
  // Bootstrap interface names: only compare across processes that printed one.
  add_disagreement(
      r, out, "logs.net.bootstrap_if_mismatch", Severity::warn, "bootstrap interface",
      [](const ProcessFacts& p) { return p.bootstrap_if; },
      "Set NCCL_SOCKET_IFNAME to the interface (or a prefix) that every node has and that routes between "
      "nodes, e.g. NCCL_SOCKET_IFNAME=eth0 or =ib0.");
}

// The interfaces NCCL used in one process: the bootstrap one, and the Socket transport's devices.
std::vector<std::string> used_interfaces(const ProcessFacts& p) {
  std::vector<std::string> ifs;
  if (!p.bootstrap_if.empty()) ifs.push_back(p.bootstrap_if);
  if (p.network == "Socket")
    for (const auto& d : p.net_devices) ifs.push_back(d.substr(0, d.find(':')));
  return ifs;
}

void net_interface_rules(const LogsResult& r, std::vector<Finding>& out) {
  Finding bad = logs_finding(
      "logs.net.bad_interface", Severity::warn, "",
      "NCCL picked a loopback/container-bridge interface. Set NCCL_SOCKET_IFNAME to the real data "
      "interface (e.g. =eth0, or ^docker,lo to exclude) on every node.");
  Finding bond = logs_finding("logs.net.bond_interface", Severity::info, "NCCL uses a bonded interface", "");
  Finding sock = logs_finding(
      "logs.net.socket_with_ib", Severity::warn, "",
      "IB devices were found but NCCL used TCP sockets: check NCCL_IB_DISABLE, NCCL_NET, NCCL_IB_HCA, "
      "and that the container has /dev/infiniband and the rdma libraries (libibverbs).");
  for (const auto& p : r.processes) {
    std::set<std::string> seen;
    for (const auto& n : used_interfaces(p)) {
      if (!seen.insert(n).second) continue;
      if (bad_iface(n)) bad.evidence.push_back(fmt::format("{}: {}", p.label(), n));
      if (n.rfind("bond", 0) == 0) bond.evidence.push_back(fmt::format("{}: {}", p.label(), n));
    }
    if (p.network == "Socket" && !p.ib_devices.empty()) {
      std::string devs;
      for (const auto& d : p.ib_devices) devs += (devs.empty() ? "" : " ") + d;
      sock.evidence.push_back(
          fmt::format("{}: Using network Socket; IB devices listed: {}", p.label(), devs));
    }
  }
  if (!bad.evidence.empty()) {
    // Every process on one host: loopback carries the job and harms nothing; another node could not use it.
    std::set<std::string> hosts;
    for (const auto& p : r.processes) hosts.insert(p.host);
    bool one_host = hosts.size() == 1 && !hosts.begin()->empty();
    bad.title =
        fmt::format("NCCL uses a loopback/docker interface on {} process(es){}", bad.evidence.size(),
                    one_host ? ", all on one host (harmless there; other nodes could not reach it)" : "");
    if (one_host) bad.severity = Severity::info;
    out.push_back(std::move(bad));
  }
  if (!bond.evidence.empty()) out.push_back(std::move(bond));
  if (!sock.evidence.empty()) {
    sock.title = fmt::format("NCCL fell back to Socket although IB devices exist ({} process(es))",
                             sock.evidence.size());
    out.push_back(std::move(sock));
  }
}

void net_rules(const LogsResult& r, std::vector<Finding>& out) {
  net_disagreement_rules(r, out);
  net_interface_rules(r, out);
}

}  // namespace

LogRule net_log_rule() {
  return {
      "net",
      net_rules,
      {{"logs.net.transport_mismatch", "Ranks use different network transports",
        "'Using network X' differs between ranks (e.g. IB on most, Socket on one): that rank lacks IB "
        "devices or drivers in its container, or runs with different NCCL_IB_DISABLE / NCCL_NET settings."},
       {"logs.net.plugin_mismatch", "Ranks load different NCCL net plugins",
        "Some ranks load an external net plugin and others do not; install the same plugin (or none) "
        "everywhere."},
       {"logs.net.bootstrap_if_mismatch", "Ranks bootstrap over different interfaces",
        "NCCL chose different bootstrap interfaces on different ranks; fine when names differ by node type, "
        "wrong when one of them cannot reach the others. Pin NCCL_SOCKET_IFNAME."},
       {"logs.net.bad_interface", "NCCL uses a loopback or container-bridge interface",
        "lo, docker*, veth*, virbr* or br-* do not route between nodes; NCCL_SOCKET_IFNAME should name the "
        "real data interface."},
       {"logs.net.bond_interface", "NCCL uses a bonded interface",
        "Informational: traffic goes over a bond."},
       {"logs.net.socket_with_ib", "NCCL fell back to TCP sockets although IB devices exist",
        "NCCL listed IB HCAs but used the Socket transport; check NCCL_IB_DISABLE, NCCL_NET, NCCL_IB_HCA, "
        "/dev/infiniband in the container and libibverbs."},
       {"logs.net.gdr_mismatch", "GPU Direct RDMA is on for some ranks and off for others",
        "Usually nvidia-peermem (or DMA-BUF support) is missing on some nodes."},
       {"logs.nccl.version_mismatch", "Ranks print different NCCL versions",
        "Processes of one job loaded different libnccl builds; use one container image / framework build."},
       {"logs.cuda.driver_mismatch", "Ranks run different CUDA drivers",
        "cudaDriverVersion differs between nodes."}}};
}

}  // namespace dd::logs
