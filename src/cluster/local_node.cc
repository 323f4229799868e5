// Local machine facts for the cluster run (getifaddrs, /proc/net/route, boot id, netns, env filter).
#include "cluster/local_node.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "nccl/if_select.h"

namespace dd::cluster {
namespace {

std::string kind_of(const std::string& name, unsigned flags) {
  if (flags & IFF_LOOPBACK) return "loopback";
  if (name.rfind("docker", 0) == 0) return "docker";
  if (name.rfind("ib", 0) == 0) return "ipoib";
  if (access(("/sys/class/net/" + name + "/bridge").c_str(), F_OK) == 0) return "bridge";
  if (access(("/sys/class/net/" + name + "/bonding").c_str(), F_OK) == 0) return "bond";
  if (access(("/sys/class/net/" + name + "/device").c_str(), F_OK) == 0) return "ethernet";
  if (name.rfind("veth", 0) == 0) return "veth";
  return "virtual";
}

int prefix_len(const sockaddr* mask) {
  if (!mask) return 0;
  const unsigned char* p;
  size_t n;
  if (mask->sa_family == AF_INET) {
    p = reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in*>(mask)->sin_addr);
    n = 4;
  } else {
    p = reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in6*>(mask)->sin6_addr);
    n = 16;
  }
  int bits = 0;
  for (size_t i = 0; i < n; ++i) bits += __builtin_popcount(p[i]);
  return bits;
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

}  // namespace

probe::NetFacts read_local_net() {
  probe::NetFacts net;
  ifaddrs* ifa = nullptr;
  if (getifaddrs(&ifa) != 0) return net;
  std::map<std::string, size_t> idx;
  int order = 0;
  for (ifaddrs* a = ifa; a; a = a->ifa_next) {
    std::string name = a->ifa_name ? a->ifa_name : "";
    if (name.empty()) continue;
    auto it = idx.find(name);
    if (it == idx.end()) {
      probe::NetInterface i;
      i.name = name;
      i.index = static_cast<int>(if_nametoindex(name.c_str()));
      i.kind = kind_of(name, a->ifa_flags);
      i.up = a->ifa_flags & IFF_UP;
      i.running = a->ifa_flags & IFF_RUNNING;
      i.mac = read_first_line("/sys/class/net/" + name + "/address");
      std::string mtu = read_first_line("/sys/class/net/" + name + "/mtu");
      i.mtu = mtu.empty() ? 0 : std::atoi(mtu.c_str());
      i.order = 1 << 20;
      it = idx.emplace(name, net.interfaces.size()).first;
      net.interfaces.push_back(i);
    }
    probe::NetInterface& i = net.interfaces[it->second];
    if (!a->ifa_addr || (a->ifa_addr->sa_family != AF_INET && a->ifa_addr->sa_family != AF_INET6)) continue;
    char buf[INET6_ADDRSTRLEN] = {0};
    bool v4 = a->ifa_addr->sa_family == AF_INET;
    const void* src = v4 ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr)
                         : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr);
    if (!inet_ntop(a->ifa_addr->sa_family, src, buf, sizeof(buf))) continue;
    std::string s = std::string(buf) + "/" + std::to_string(prefix_len(a->ifa_netmask));
    (v4 ? i.ipv4 : i.ipv6).push_back(s);
    if (i.order == (1 << 20)) i.order = order++;
  }
  freeifaddrs(ifa);
  std::ifstream route("/proc/net/route");
  std::string line;
  std::getline(route, line);  // header
  while (std::getline(route, line)) {
    std::istringstream ls(line);
    std::string ifname, dest;
    ls >> ifname >> dest;
    if (dest == "00000000") {
      net.default_route_ifname = ifname;
      break;
    }
  }
  return net;
}

std::string read_boot_id() { return read_first_line("/proc/sys/kernel/random/boot_id"); }

std::string read_netns() {
  char buf[128];
  ssize_t n = readlink("/proc/self/ns/net", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

std::map<std::string, std::string> relevant_env(const EnvMap& env) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env) {
    for (const char* p : {"NCCL_", "CUDA_", "GLOO_", "UCX_", "OMPI_", "PMIX_", "PMI_", "SLURM_", "MASTER_"})
      if (k.rfind(p, 0) == 0) out[k] = v;
    for (const char* n : {"LD_LIBRARY_PATH", "PYTHONPATH", "RANK", "WORLD_SIZE", "LOCAL_RANK",
                          "LOCAL_WORLD_SIZE", "GROUP_RANK", "NODE_RANK"})
      if (k == n) out[k] = v;
  }
  return out;
}

void complete_facts(probe::NodeFacts& facts, const EnvMap& env) {
  if (facts.env.empty()) facts.env = relevant_env(env);
  facts.env.erase("DISTDOCTOR_TOKEN");  // the job token never travels in facts or JSON
  if (facts.net.interfaces.empty()) facts.net = read_local_net();
  if (facts.host.boot_id.empty()) facts.host.boot_id = read_boot_id();
  if (facts.host.netns.empty()) facts.host.netns = read_netns();
}

std::string pick_advertise_addr(const probe::NetFacts& net, const std::string& nccl_setting) {
  for (const auto& i : net.interfaces)
    if (i.name == net.default_route_ifname && i.up && !i.ipv4.empty())
      return i.ipv4.front().substr(0, i.ipv4.front().find('/'));
  for (const auto& c : nccl::nccl_socket_interfaces(net, nccl_setting))
    if (c.family == 4 && c.iface->kind != "loopback") return c.addr;
  return "127.0.0.1";
}

}  // namespace dd::cluster
