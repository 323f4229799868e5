// plan_listen: from the --master host to the IP literals the store binds (see listen_address.h).
#include "rendezvous/listen_address.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>

#include <algorithm>

namespace dd::rendezvous {

namespace {

std::string ip_text(const sockaddr_storage& ss) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, buf, sizeof buf);
  else
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr, buf, sizeof buf);
  return buf;
}

bool is_loopback(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET)
    return (ntohl(reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr.s_addr) >> 24) == 127;
  return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr);
}

bool names_loopback(const std::string& host) {
  return host == "localhost" || host.starts_with("127.") || host == "::1";
}

}  // namespace

ListenPlan every_address(const HostPort& master, std::string note) {
  bool v6 = master.host.find(':') != std::string::npos;
  return ListenPlan{{v6 ? "::" : "0.0.0.0"}, true, std::move(note)};
}

std::string not_local_note(const HostPort& master) {
  return fmt::format(
      "{} is not an address of this machine (a NAT or service address?): the store listens on "
      "every address (--listen-all says so and silences this note)",
      master.host);
}

ListenPlan plan_listen(const HostPort& master, bool listen_all, Deadline deadline) {
  const std::string& h = master.host;
  if (listen_all || h.empty() || h == "0.0.0.0" || h == "::") return every_address(master, "");
  auto addrs = resolve(master, deadline);
  if (!addrs || addrs->empty())
    return every_address(master,
                         fmt::format("cannot resolve {} here: the store listens on every address", h));
  ListenPlan plan;
  bool all_loopback = true;
  for (const auto& a : *addrs) {
    all_loopback = all_loopback && is_loopback(a);
    std::string ip = ip_text(a);
    if (std::find(plan.hosts.begin(), plan.hosts.end(), ip) == plan.hosts.end()) plan.hosts.push_back(ip);
  }
  if (all_loopback && !names_loopback(h))
    return every_address(
        master, fmt::format("{} resolves to loopback ({}) on this machine: the store listens on every "
                            "address so that other nodes reach it",
                            h, plan.hosts.front()));
  return plan;
}

}  // namespace dd::rendezvous
