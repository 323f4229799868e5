// Rule: which socket interface NCCL will use (NCCL_SOCKET_IFNAME with NCCL's grammar, or NCCL's automatic
// order), and whether other nodes can reach it. The prediction is in the evidence as "nccl_bootstrap_if=NAME"
// (or "none").
#include <fmt/format.h>

#include "nccl/if_list.h"
#include "nccl/if_select.h"
#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

std::vector<std::string> names(const std::vector<nccl::IfCandidate>& c) {
  std::vector<std::string> out;
  for (const auto& x : c) out.push_back(x.name);
  return out;
}

// True when NCCL will move data over sockets on this node (no usable IB/RoCE port, IB disabled, or
// NCCL_NET=Socket).
bool data_over_sockets(const probe::NodeFacts& f) {
  auto net = nccl_setting(f, "NCCL_NET");
  if (net && (*net == "Socket" || *net == "socket")) return true;
  auto dis = nccl_setting(f, "NCCL_IB_DISABLE");
  if (dis && nccl_int(*dis) != 0) return true;
  for (const auto& d : f.ib.devices)
    for (const auto& p : d.ports)
      if (p.state.find("ACTIVE") != std::string::npos) return false;
  return true;
}

std::vector<std::string> base_evidence(const probe::NodeFacts& f, const nccl::IfSelection& boot,
                                       const nccl::IfSelection& all) {
  std::vector<std::string> ev;
  ev.push_back("nccl_bootstrap_if=" + (boot.found() ? boot.matched[0].name : std::string("none")));
  if (boot.found()) ev.push_back("nccl_bootstrap_addr=" + boot.matched[0].addr);
  ev.push_back("nccl_socket_ifs=" + (all.found() ? join(names(all.matched), ",") : std::string("none")));
  ev.push_back(describe_setting(f, "NCCL_SOCKET_IFNAME"));
  if (nccl_setting(f, "NCCL_SOCKET_FAMILY")) ev.push_back(describe_setting(f, "NCCL_SOCKET_FAMILY"));
  if (nccl_setting(f, "NCCL_COMM_ID")) ev.push_back(describe_setting(f, "NCCL_COMM_ID"));
  ev.push_back("selected by: " + (boot.stage.empty() ? all.stage : boot.stage));
  return ev;
}

// Interfaces the user's list would match if they were running (to explain a no-match).
std::vector<std::string> matching_but_not_running(const probe::NetFacts& net, const std::string& value) {
  nccl::IfList l = nccl::parse_if_list(value, nccl::kNcclMaxIfs);
  std::vector<std::string> out;
  for (const auto& i : net.interfaces) {
    if (!nccl::if_list_selects(l, i.name)) continue;
    if (!i.running)
      out.push_back(i.name + (i.up ? " (up, no carrier)" : " (down)"));
    else if (i.ipv4.empty() && i.ipv6.empty())
      out.push_back(i.name + " (no address)");
  }
  return out;
}

std::string suggest_name(const probe::NodeFacts& f) {
  for (const auto& i : f.net.interfaces) {
    if (f.net.default_route_ifname == i.name && i.running && !iface_is_local_only(i)) return i.name;
  }
  for (const auto& i : f.net.interfaces)
    if (i.running && !iface_is_local_only(i) && !i.ipv4.empty()) return i.name;
  return "<interface>";
}

// An IP address instead of a name: NCCL compares it with interface names and matches nothing. True when
// found (then nothing else about the value matters).
bool check_is_ip(const probe::NodeFacts& f, const std::string& v, const nccl::IfList& l,
                 const std::vector<std::string>& ev, std::vector<Finding>& out) {
  std::string body = v.substr((l.exclude ? 1 : 0) + (l.exact ? 1 : 0));
  for (size_t start = 0; start <= body.size();) {
    size_t end = body.find(',', start);
    if (end == std::string::npos) end = body.size();
    std::string tok = body.substr(start, end - start);
    if (looks_like_ip(tok)) {
      const auto* holder = iface_with_addr(f.net, tok.substr(0, tok.find('/')));
      std::string name = holder ? holder->name : suggest_name(f);
      out.push_back({"net.socket_ifname.is_ip", Severity::fail,
                     fmt::format("NCCL_SOCKET_IFNAME=\"{}\" is an IP address, not an interface name", v), ev,
                     fmt::format("export NCCL_SOCKET_IFNAME={}{}", name,
                                 holder ? fmt::format("   # {} holds {}", name, tok) : "")});
      return true;
    }
    start = end + 1;
  }
  return false;
}

void check_user_value(const probe::NodeFacts& f, const std::string& v, const nccl::IfSelection& all,
                      const std::vector<std::string>& ev, std::vector<Finding>& out) {
  nccl::IfList l = nccl::parse_if_list(v, nccl::kNcclMaxIfs);
  if (check_is_ip(f, v, l, ev, out)) return;
  if (l.overlong || l.dropped > 0) {
    out.push_back({"net.socket_ifname.syntax", Severity::warn,
                   l.overlong
                       ? "NCCL_SOCKET_IFNAME has an entry of 64+ characters (overflows NCCL's buffer)"
                       : fmt::format("NCCL_SOCKET_IFNAME lists more than {} entries; NCCL ignores {} of them",
                                     nccl::kNcclMaxIfs, l.dropped),
                   ev, "Name the interfaces to use, e.g. export NCCL_SOCKET_IFNAME=" + suggest_name(f)});
  }
  if (!all.found()) {
    auto why = matching_but_not_running(f.net, v);
    auto ev2 = ev;
    if (!why.empty()) ev2.push_back("matching but unusable: " + join(why));
    out.push_back(
        {"net.socket_ifname.no_match", Severity::fail,
         fmt::format("NCCL_SOCKET_IFNAME=\"{}\" matches no running interface: NCCL fails with "
                     "\"Bootstrap : no socket interface found\"",
                     v),
         ev2,
         fmt::format("export NCCL_SOCKET_IFNAME={}   (see `ip -br addr`; prefix match, '=' exact, '^' "
                     "excludes)",
                     suggest_name(f))});
    return;
  }
  bool all_local = true;
  for (const auto& c : all.matched) all_local = all_local && c.iface && iface_is_local_only(*c.iface);
  if (all_local) {
    out.push_back({"net.socket_ifname.virtual_only", Severity::warn,
                   fmt::format("NCCL_SOCKET_IFNAME=\"{}\" selects only local/virtual interfaces ({})", v,
                               join(names(all.matched))),
                   ev,
                   fmt::format("export NCCL_SOCKET_IFNAME={}   (an interface other nodes can reach)",
                               suggest_name(f))});
    return;
  }
  // "^docker0" style lists keep lo, which comes first in getifaddrs order: the bootstrap then listens on lo.
  if (all.matched[0].iface && iface_is_local_only(*all.matched[0].iface)) {
    out.push_back(
        {"net.socket_ifname.local_first", Severity::warn,
         fmt::format("NCCL_SOCKET_IFNAME=\"{}\" also selects {}, which comes first: NCCL bootstraps on {} "
                     "({}) and other nodes cannot connect",
                     v, all.matched[0].name, all.matched[0].name, all.matched[0].addr),
         ev, fmt::format("export NCCL_SOCKET_IFNAME={}   (or exclude it too: ^docker,lo)", suggest_name(f))});
    return;
  }
  out.push_back({"net.nccl_if.selected", Severity::ok,
                 fmt::format("NCCL_SOCKET_IFNAME=\"{}\": NCCL uses {} ({})", v, all.matched[0].name,
                             all.matched[0].addr),
                 ev});
}

void check_auto(const probe::NodeFacts& f, const nccl::IfSelection& boot, const nccl::IfSelection& all,
                const std::vector<std::string>& ev, std::vector<Finding>& out) {
  if (!boot.found()) {
    out.push_back(
        {"net.nccl_if.none", Severity::fail,
         "NCCL finds no usable socket interface (none running with an address): \"Bootstrap : no socket "
         "interface found\"",
         ev, "Bring up a network interface with an IP address (ip link set IF up; ip addr add ...)."});
    return;
  }
  const auto& c = boot.matched[0];
  if (c.iface && iface_is_local_only(*c.iface)) {
    bool lo = c.iface->kind == "loopback" || c.name.rfind("lo", 0) == 0;
    out.push_back(
        {lo ? "net.nccl_auto_if.loopback" : "net.nccl_auto_if.docker", Severity::warn,
         fmt::format("NCCL_SOCKET_IFNAME unset: NCCL will pick {} ({}), which other nodes cannot reach",
                     c.name, c.addr),
         ev, fmt::format("export NCCL_SOCKET_IFNAME={} (and GLOO_SOCKET_IFNAME for gloo)", suggest_name(f))});
    return;
  }
  // Slow pick while a faster interface exists: only matters when NCCL moves data over sockets.
  if (data_over_sockets(f) && c.iface && c.iface->speed_mbps > 0) {
    const probe::NetInterface* best = nullptr;
    for (const auto& i : f.net.interfaces) {
      if (!i.running || iface_is_local_only(i) || (i.ipv4.empty() && i.ipv6.empty())) continue;
      if (i.speed_mbps > c.iface->speed_mbps && (!best || i.speed_mbps > best->speed_mbps)) best = &i;
    }
    if (best) {
      out.push_back({"net.nccl_if.slow", Severity::warn,
                     fmt::format("NCCL will use {} ({} Mb/s) for socket traffic while {} runs at {} Mb/s",
                                 c.name, c.iface->speed_mbps, best->name, best->speed_mbps),
                     ev, fmt::format("export NCCL_SOCKET_IFNAME={}", best->name)});
      return;
    }
  }
  std::string why = boot.stage == "ib"             ? "IPoIB first"
                    : boot.stage == "NCCL_COMM_ID" ? "subnet of NCCL_COMM_ID"
                                                   : "first usable interface";
  out.push_back({"net.nccl_if.selected", Severity::ok,
                 fmt::format("NCCL_SOCKET_IFNAME unset: NCCL will use {} ({}; {})", c.name, c.addr, why),
                 ev});
}

std::vector<Finding> check_socket_ifname(const probe::NodeFacts& f, const CheckOptions&) {
  std::vector<Finding> out;
  if (f.net.interfaces.empty()) {
    return {{"net.interfaces.unknown",
             Severity::info,
             "No network interface facts: NCCL interface choice not checked",
             {}}};
  }
  const nccl::IfSelectInput in = nccl_if_select_input(f);
  nccl::IfSelection all = nccl::nccl_select_interfaces(in);
  nccl::IfSelection boot = nccl::nccl_bootstrap_interface(in);
  auto ev = base_evidence(f, boot, all);
  if (!boot.error.empty() || !all.error.empty()) {
    out.push_back({"net.nccl_comm_id.invalid", Severity::fail, boot.error.empty() ? all.error : boot.error,
                   ev, "Set NCCL_COMM_ID to <ipv4>:<port> or [<ipv6>]:<port> of rank 0, or unset it."});
    return out;
  }
  if (boot.unpredictable || all.unpredictable) {
    ev[0] = "nccl_bootstrap_if=unknown";
    out.push_back(
        {"net.nccl_comm_id.hostname", Severity::info,
         fmt::format("NCCL_COMM_ID={} names a host: NCCL uses the interface in the subnet of the address it "
                     "resolves to (not predicted here)",
                     *in.comm_id),
         ev});
    return out;
  }
  if (in.comm_id && !boot.found()) {
    out.push_back(
        {"net.nccl_comm_id.no_subnet", Severity::fail,
         fmt::format("No local address is in the subnet of NCCL_COMM_ID={}: NCCL fails with \"No usable "
                     "listening interface found\"",
                     *in.comm_id),
         ev, "Set NCCL_COMM_ID to an address of rank 0 on a network this node is attached to."});
    return out;
  }
  if (all.ignored_short) {
    out.push_back({"net.socket_ifname.ignored", Severity::warn,
                   fmt::format("NCCL_SOCKET_IFNAME=\"{}\" is ignored by NCCL (shorter than 2 characters); it "
                               "chooses by itself",
                               *in.socket_ifname),
                   ev, fmt::format("export NCCL_SOCKET_IFNAME={}   or unset it", suggest_name(f))});
  }
  if (all.user_list) {
    check_user_value(f, *in.socket_ifname, all, ev, out);
  } else {
    check_auto(f, boot, all, ev, out);
  }
  return out;
}

}  // namespace

NodeRule socket_ifname_rule() { return {"net.socket_ifname", check_socket_ifname, socket_ifname_docs()}; }

}  // namespace dd::rules
