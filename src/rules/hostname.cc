// Rule: the hostname must resolve to an address other nodes can reach (not 127.0.1.1 / ::1).
#include <fmt/format.h>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

bool loopback(const std::string& a) {
  return a.rfind("127.", 0) == 0 || a == "::1" || a == "::ffff:127.0.0.1";
}

std::vector<Finding> check_hostname(const probe::NodeFacts& f, const CheckOptions&) {
  const auto& h = f.host;
  if (h.hostname.empty()) return {};
  std::vector<std::string> ev = {
      "hostname " + h.hostname,
      "resolves to " + (h.resolved_addrs.empty() ? std::string("nothing") : join(h.resolved_addrs))};
  if (h.resolved_addrs.empty()) {
    return {{"host.hostname_unresolved", Severity::info,
             fmt::format("hostname {} does not resolve: gloo and MASTER_ADDR={} will fail", h.hostname,
                         h.hostname),
             ev, fmt::format("Add \"<this node's IP> {}\" to /etc/hosts or DNS", h.hostname)}};
  }
  std::vector<std::string> lo;
  for (const auto& a : h.resolved_addrs)
    if (loopback(a)) lo.push_back(a);
  if (lo.size() == h.resolved_addrs.size()) {
    std::string ip;
    for (const auto& i : f.net.interfaces)
      if (ip.empty() && i.running && !iface_is_local_only(i) && !i.ipv4.empty())
        ip = i.ipv4[0].substr(0, i.ipv4[0].find('/'));
    return {{"host.hostname_loopback", Severity::warn,
             fmt::format(
                 "hostname {} resolves only to loopback ({}): other nodes cannot reach a master so named, "
                 "and gloo binds to loopback",
                 h.hostname, join(lo)),
             ev,
             fmt::format("In /etc/hosts map {} to {} instead of {}; or use MASTER_ADDR=<IP> and set "
                         "GLOO_SOCKET_IFNAME",
                         h.hostname, ip.empty() ? "this node's IP" : ip, lo[0])}};
  }
  return {{"host.hostname_ok", Severity::ok,
           fmt::format("hostname {} resolves to {}", h.hostname, join(h.resolved_addrs)), ev}};
}

}  // namespace

NodeRule hostname_rule() {
  return {
      "host.hostname",
      check_hostname,
      {{"host.hostname_ok", "Hostname resolves", "The hostname resolves to a non-loopback address."},
       {"host.hostname_loopback", "Hostname resolves to loopback",
        "Debian/Ubuntu put \"127.0.1.1 <hostname>\" in /etc/hosts. If this node is the master and "
        "MASTER_ADDR is "
        "its hostname, it listens on loopback and other nodes cannot connect; PyTorch's gloo backend binds "
        "to "
        "the address the hostname resolves to when GLOO_SOCKET_IFNAME is unset, so its peers time out."},
       {"host.hostname_unresolved", "Hostname does not resolve",
        "getaddrinfo(hostname) fails: gloo falls back to loopback and launchers using the hostname fail."}}};
}

}  // namespace dd::rules
