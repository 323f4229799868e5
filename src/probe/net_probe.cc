// Network probe: getifaddrs and the ethtool ioctl are the only syscalls; everything else goes through Fs.
#include "probe/net_probe.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>

namespace dd::probe {
namespace {

int prefix_len(const sockaddr* mask) {
  if (!mask) return -1;
  const unsigned char* p;
  size_t n;
  if (mask->sa_family == AF_INET) {
    p = reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in*>(mask)->sin_addr);
    n = 4;
  } else if (mask->sa_family == AF_INET6) {
    p = reinterpret_cast<const unsigned char*>(&reinterpret_cast<const sockaddr_in6*>(mask)->sin6_addr);
    n = 16;
  } else {
    return -1;
  }
  int bits = 0;
  for (size_t i = 0; i < n; ++i) bits += __builtin_popcount(p[i]);
  return bits;
}

int to_int(const Result<std::string>& r, int dflt) {
  if (!r) return dflt;
  try {
    return std::stoi(*r);
  } catch (...) {
    return dflt;
  }
}

std::string basename_of(const std::string& p) {
  auto s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

}  // namespace

std::vector<IfAddrEntry> read_ifaddrs(std::string* error) {
  std::vector<IfAddrEntry> out;
  ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) != 0) {
    if (error) *error = std::string("net: getifaddrs: ") + std::strerror(errno);
    return out;
  }
  for (ifaddrs* i = ifs; i; i = i->ifa_next) {
    IfAddrEntry e;
    e.name = i->ifa_name ? i->ifa_name : "";
    e.flags = i->ifa_flags;
    e.family = i->ifa_addr ? i->ifa_addr->sa_family : 0;
    char buf[INET6_ADDRSTRLEN] = {0};
    if (e.family == AF_INET &&
        inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof(buf)))
      e.addr = buf;
    if (e.family == AF_INET6 &&
        inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr, buf, sizeof(buf)))
      e.addr = buf;
    if (e.family == AF_INET || e.family == AF_INET6) e.prefix = prefix_len(i->ifa_netmask);
    out.push_back(std::move(e));
  }
  freeifaddrs(ifs);
  return out;
}

std::string ethtool_driver(const std::string& ifname) {
  if (ifname.size() >= IFNAMSIZ) return "";
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
  ifr.ifr_data = reinterpret_cast<char*>(&info);
  int rc = ioctl(fd, SIOCETHTOOL, &ifr);
  close(fd);
  if (rc != 0) return "";
  return std::string(info.driver, strnlen(info.driver, sizeof(info.driver)));
}

IfTraits read_if_traits(const Fs& fs, const std::string& name, unsigned flags,
                        const std::function<std::string(const std::string&)>& driver_of) {
  const std::string d = "/sys/class/net/" + name;
  IfTraits t;
  t.loopback = flags & IFF_LOOPBACK;
  t.bridge = fs.exists(d + "/bridge");
  t.bond = fs.exists(d + "/bonding");
  t.has_device = fs.exists(d + "/device");
  t.type = to_int(read_trimmed(fs, d + "/type"), -1);
  if (auto ue = fs.read(d + "/uevent")) {
    auto p = ue->find("DEVTYPE=");
    if (p != std::string::npos) t.devtype = ue->substr(p + 8, ue->find('\n', p) - p - 8);
  }
  t.vlan = fs.exists("/proc/net/vlan/" + name) || t.devtype == "vlan";
  if (auto drv = fs.readlink(d + "/device/driver")) t.driver = basename_of(*drv);
  if (t.driver.empty() && driver_of) t.driver = driver_of(name);
  return t;
}

namespace {

// getifaddrs' view: interface names in first-seen order (any family), their flags, and the position of each
// one's first IPv4/IPv6 address (NCCL's scan order).
struct IfOrder {
  std::vector<std::string> names;
  std::map<std::string, unsigned> flags;
  std::map<std::string, int> first_addr;
};

IfOrder order_entries(const std::vector<IfAddrEntry>& entries, const Fs& fs,
                      std::vector<std::string>* errors) {
  IfOrder o;
  int pos = 0;
  for (const auto& e : entries) {
    if (e.name.empty()) continue;
    if (!o.flags.count(e.name)) o.names.push_back(e.name);
    o.flags[e.name] = e.flags;
    if (e.family == 2 || e.family == 10) {
      if (!o.first_addr.count(e.name)) o.first_addr[e.name] = pos;
      ++pos;
    }
  }
  // Interfaces sysfs knows that getifaddrs did not return (rare: e.g. raced away) are still worth listing.
  if (auto names = fs.list("/sys/class/net")) {
    for (const auto& n : *names)
      if (!o.flags.count(n) && fs.is_dir("/sys/class/net/" + n)) {
        o.names.push_back(n);
        o.flags[n] = 0;
      }
  } else if (errors) {
    errors->push_back("net: " + names.error().message());
  }
  return o;
}

// One interface: flags from getifaddrs, the rest from /sys/class/net/NAME, addresses in getifaddrs order.
NetInterface read_interface(const std::string& name, unsigned fl, const std::vector<IfAddrEntry>& entries,
                            const Fs& fs, const std::function<std::string(const std::string&)>& driver_of,
                            std::vector<std::string>* errors) {
  NetInterface i;
  i.name = name;
  i.up = fl & IFF_UP;
  i.running = fl & IFF_RUNNING;
  const std::string d = "/sys/class/net/" + name;
  i.index = to_int(read_trimmed(fs, d + "/ifindex"), 0);
  i.mtu = to_int(read_trimmed(fs, d + "/mtu"), 0);
  i.speed_mbps = to_int(read_trimmed(fs, d + "/speed"), -1);  // EINVAL when down or virtual
  if (i.speed_mbps <= 0) i.speed_mbps = -1;
  if (auto mac = read_trimmed(fs, d + "/address")) i.mac = *mac;
  if (auto m = fs.readlink(d + "/master")) i.master = basename_of(*m);
  i.kind = classify_interface(name, read_if_traits(fs, name, fl, driver_of));
  if (!fs.exists(d) && errors)
    errors->push_back("net: " + d + " missing (sysfs not mounted for this namespace?)");
  for (const auto& e : entries) {
    if (e.name != name || e.addr.empty()) continue;
    std::string a = e.addr + (e.prefix >= 0 ? "/" + std::to_string(e.prefix) : "");
    (e.family == 2 ? i.ipv4 : i.ipv6).push_back(a);
  }
  return i;
}

std::string default_route(const Fs& fs, std::vector<std::string>* errors) {
  std::string ifname;
  auto r4 = fs.read("/proc/net/route");
  if (r4) ifname = parse_proc_net_route(*r4);
  if (ifname.empty())
    if (auto r6 = fs.read("/proc/net/ipv6_route")) ifname = parse_ipv6_route(*r6);
  if (!r4 && errors) errors->push_back("net: " + r4.error().message());
  return ifname;
}

}  // namespace

NetFacts build_net_facts(const std::vector<IfAddrEntry>& entries, const Fs& fs,
                         const std::function<std::string(const std::string&)>& driver_of,
                         std::vector<std::string>* errors) {
  NetFacts nf;
  const IfOrder o = order_entries(entries, fs, errors);
  std::vector<NetInterface> with_addr, without;
  for (const auto& name : o.names) {
    NetInterface i = read_interface(name, o.flags.at(name), entries, fs, driver_of, errors);
    auto fa = o.first_addr.find(name);
    i.order = fa != o.first_addr.end() ? fa->second : -1;
    (i.order >= 0 ? with_addr : without).push_back(std::move(i));
  }
  std::stable_sort(with_addr.begin(), with_addr.end(),
                   [](const NetInterface& a, const NetInterface& b) { return a.order < b.order; });
  nf.interfaces = std::move(with_addr);
  for (auto& i : without) nf.interfaces.push_back(std::move(i));
  nf.default_route_ifname = default_route(fs, errors);
  return nf;
}

NetFacts probe_net(const Fs& fs, std::vector<std::string>* errors) {
  std::string err;
  auto entries = read_ifaddrs(&err);
  if (!err.empty() && errors) errors->push_back(err);
  NetFacts nf = build_net_facts(entries, fs, ethtool_driver, errors);
  // Every network namespace has at least lo: none at all means the probe could not see them, which the
  // interface rules must hear about (they would otherwise judge an empty machine).
  if (nf.interfaces.empty() && err.empty() && errors) errors->push_back("net: no network interface found");
  return nf;
}

}  // namespace dd::probe
