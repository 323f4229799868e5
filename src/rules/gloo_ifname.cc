// Rule: GLOO_SOCKET_IFNAME as PyTorch reads it (torch/csrc/distributed/c10d/init.cpp: used only when
// strlen > 1, split on ',' into exact interface names) and gloo resolves each one
// (gloo/transport/tcp/device.cc lookupAddrForIface: exact strcmp on the name, first IPv4/IPv6 address, no
// up/running test, else "Unable to find address for: NAME").
#include <fmt/format.h>

#include <sstream>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

std::vector<std::string> split_like_getline(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  return out;
}

std::string first_usable(const probe::NetFacts& net) {
  if (!net.default_route_ifname.empty()) return net.default_route_ifname;
  for (const auto& i : net.interfaces)
    if (i.running && !iface_is_local_only(i) && !i.ipv4.empty()) return i.name;
  return "<interface>";
}

// One entry of GLOO_SOCKET_IFNAME (gloo wants exact names of interfaces with an address that other nodes can
// reach). True when gloo can use it; otherwise the finding is in out.
bool check_gloo_entry(const probe::NodeFacts& f, const std::string& v, const std::string& name,
                      const std::vector<std::string>& ev, std::vector<Finding>& out) {
  if (looks_like_ip(name)) {
    const auto* holder = iface_with_addr(f.net, name.substr(0, name.find('/')));
    out.push_back(
        {"net.gloo_ifname.is_ip", Severity::fail,
         fmt::format("GLOO_SOCKET_IFNAME entry \"{}\" is an IP address, not an interface name", name), ev,
         fmt::format("export GLOO_SOCKET_IFNAME={}", holder ? holder->name : first_usable(f.net))});
    return false;
  }
  const auto* i = iface_by_name(f.net, name);
  if (!i || (i->ipv4.empty() && i->ipv6.empty())) {
    out.push_back({"net.gloo_ifname.no_match", Severity::fail,
                   name.empty()
                       ? fmt::format("GLOO_SOCKET_IFNAME=\"{}\" has an empty entry: gloo fails with "
                                     "\"Unable to find address for: \"",
                                     v)
                       : fmt::format("GLOO_SOCKET_IFNAME names \"{}\", {}: gloo fails with \"Unable to "
                                     "find address for: {}\"",
                                     name, i ? "which has no address" : "which does not exist", name),
                   ev,
                   fmt::format("export GLOO_SOCKET_IFNAME={}   (exact names, comma separated; no prefixes)",
                               first_usable(f.net))});
    return false;
  }
  if (!i->running) {
    out.push_back(
        {"net.gloo_ifname.down", Severity::warn,
         fmt::format("GLOO_SOCKET_IFNAME names {}, which is {}: gloo binds to it but peers cannot connect",
                     name, i->up ? "up without carrier" : "down"),
         ev, fmt::format("ip link set {} up, or export GLOO_SOCKET_IFNAME={}", name, first_usable(f.net))});
    return false;
  }
  if (iface_is_local_only(*i)) {
    out.push_back({"net.gloo_ifname.virtual", Severity::warn,
                   fmt::format("GLOO_SOCKET_IFNAME names {}, which other nodes cannot reach", name), ev,
                   fmt::format("export GLOO_SOCKET_IFNAME={}", first_usable(f.net))});
    return false;
  }
  return true;
}

std::vector<Finding> check_gloo_ifname(const probe::NodeFacts& f, const CheckOptions&) {
  auto v = env_value(f, "GLOO_SOCKET_IFNAME");
  if (!v) return {};
  std::vector<std::string> ev = {fmt::format("GLOO_SOCKET_IFNAME=\"{}\"", *v)};
  if (v->size() <= 1) {
    return {
        {"net.gloo_ifname.ignored", Severity::warn,
         fmt::format(
             "GLOO_SOCKET_IFNAME=\"{}\" is ignored (shorter than 2 characters); gloo binds to the address "
             "the hostname resolves to",
             *v),
         ev, fmt::format("export GLOO_SOCKET_IFNAME={}", first_usable(f.net))}};
  }
  if (f.net.interfaces.empty()) return {};
  std::vector<Finding> out;
  std::vector<std::string> used;
  for (const auto& name : split_like_getline(*v))
    if (check_gloo_entry(f, *v, name, ev, out)) used.push_back(name);
  if (out.empty())
    out.push_back({"net.gloo_ifname.ok", Severity::ok,
                   fmt::format("GLOO_SOCKET_IFNAME: gloo uses {}", join(used)), ev});
  return out;
}

}  // namespace

NodeRule gloo_ifname_rule() {
  return {
      "net.gloo_ifname",
      check_gloo_ifname,
      {{"net.gloo_ifname.ok", "GLOO_SOCKET_IFNAME names usable interfaces",
        "Every interface in GLOO_SOCKET_IFNAME exists, is running and has an address."},
       {"net.gloo_ifname.no_match", "GLOO_SOCKET_IFNAME names a missing interface",
        "Unlike NCCL, PyTorch's gloo backend takes GLOO_SOCKET_IFNAME as a comma list of exact interface "
        "names "
        "(no prefixes, no '^' or '='). gloo looks each one up and needs an IPv4/IPv6 address on it; "
        "otherwise "
        "init_process_group raises \"Unable to find address for: NAME\"."},
       {"net.gloo_ifname.is_ip", "GLOO_SOCKET_IFNAME holds an IP address",
        "GLOO_SOCKET_IFNAME takes interface names; an address is not found as a name."},
       {"net.gloo_ifname.down", "GLOO_SOCKET_IFNAME names an interface that is down",
        "gloo does not check the link state: it binds to the address of a down interface, then connections "
        "from other ranks time out."},
       {"net.gloo_ifname.virtual", "GLOO_SOCKET_IFNAME names loopback/docker",
        "The interface named is local to this machine; ranks on other nodes cannot connect."},
       {"net.gloo_ifname.ignored", "GLOO_SOCKET_IFNAME too short",
        "PyTorch uses GLOO_SOCKET_IFNAME only when it is longer than one character; otherwise gloo binds to "
        "the "
        "address the hostname resolves to (loopback if it resolves to 127.0.1.1)."}}};
}

}  // namespace dd::rules
