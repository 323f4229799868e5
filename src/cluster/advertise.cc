// pick_advertise_addr (see advertise.h): a choice over the node's net facts and NCCL's interface model.
#include "cluster/advertise.h"

#include "rules/rule_util.h"

namespace dd::cluster {

std::string pick_advertise_addr(const probe::NodeFacts& facts) {
  const probe::NetFacts& net = facts.net;
  for (const auto& i : net.interfaces)
    if (i.name == net.default_route_ifname && i.up && !i.ipv4.empty())
      return i.ipv4.front().substr(0, i.ipv4.front().find('/'));
  for (const auto& c : rules::nccl_socket_ifs(facts))
    if (c.family == 4 && c.iface->kind != "loopback") return c.addr;
  return "127.0.0.1";
}

}  // namespace dd::cluster
