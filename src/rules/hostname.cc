// Rule: the hostname must resolve to an address other nodes can reach (not 127.0.1.1 / ::1). That matters
// only where another node needs it: a multi-node check or job, or a master address taken from the hostname;
// on a single node it is info.
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

int64_t env_int(const probe::NodeFacts& f, const char* name) {
  auto v = env_value(f, name);
  return v ? nccl_int(*v, 0) : 0;
}

// Why the hostname's address matters here ("" when nothing shows another node needs it).
std::string why_hostname_matters(const probe::NodeFacts& f, const CheckOptions& opt) {
  const auto& h = f.host;
  auto master = env_value(f, "MASTER_ADDR");
  if (master &&
      (*master == h.hostname || *master == h.fqdn || *master == h.hostname.substr(0, h.hostname.find('.'))))
    return fmt::format("MASTER_ADDR={} is this hostname", *master);
  if (opt.nnodes > 1) return fmt::format("{}-node check", opt.nnodes);
  for (const char* n : {"SLURM_NNODES", "SLURM_JOB_NUM_NODES"})
    if (env_int(f, n) > 1) return fmt::format("{}={}", n, env_int(f, n));
  const int64_t world = env_int(f, "WORLD_SIZE"), local = env_int(f, "LOCAL_WORLD_SIZE");
  if (local > 0 && world > local) return fmt::format("WORLD_SIZE={} > LOCAL_WORLD_SIZE={}", world, local);
  const int64_t ompi = env_int(f, "OMPI_COMM_WORLD_SIZE"),
                ompi_local = env_int(f, "OMPI_COMM_WORLD_LOCAL_SIZE");
  if (ompi_local > 0 && ompi > ompi_local)
    return fmt::format("OMPI_COMM_WORLD_SIZE={} > OMPI_COMM_WORLD_LOCAL_SIZE={}", ompi, ompi_local);
  return "";
}

std::vector<Finding> check_hostname(const probe::NodeFacts& f, const CheckOptions& opt) {
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
    const std::string why = why_hostname_matters(f, opt);
    if (!why.empty()) ev.push_back("matters because " + why);
    return {{"host.hostname_loopback", why.empty() ? Severity::info : Severity::warn,
             why.empty()
                 ? fmt::format("hostname {} resolves only to loopback ({}): harmless on one node, but "
                               "other nodes could not reach a master so named",
                               h.hostname, join(lo))
                 : fmt::format("hostname {} resolves only to loopback ({}) and {}: other nodes cannot "
                               "reach a master so named, and gloo binds to loopback",
                               h.hostname, join(lo), why),
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
        "the address the hostname resolves to when GLOO_SOCKET_IFNAME is unset, so its peers time out. It is "
        "a "
        "warning where another node needs the address (a multi-node check, SLURM_NNODES or WORLD_SIZE beyond "
        "this node, or MASTER_ADDR set to the hostname) and info on a single node, where it harms nothing."},
       {"host.hostname_unresolved", "Hostname does not resolve",
        "getaddrinfo(hostname) fails: gloo falls back to loopback and launchers using the hostname fail."}}};
}

}  // namespace dd::rules
