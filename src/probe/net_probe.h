// Network probe: every interface in getifaddrs order (the order NCCL scans), with addresses, flags, MTU,
// speed, MAC, master and kind, plus the default-route interface.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "probe/facts.h"
#include "probe/fs.h"
#include "probe/net_parse.h"

namespace dd::probe {

// One getifaddrs entry, reduced to plain data. family: 2 AF_INET, 10 AF_INET6, 17 AF_PACKET, 0 no address.
struct IfAddrEntry {
  std::string name;
  int family = 0;
  unsigned flags = 0;
  std::string addr;  // "198.18.0.1", "fd00::1" ("" for AF_PACKET)
  int prefix = -1;   // from the netmask
};

// getifaddrs(), in its order. Errors go to *error.
std::vector<IfAddrEntry> read_ifaddrs(std::string* error);

// Driver name through the ethtool ioctl ("veth", "bridge", "bonding", "mlx5_core"), "" when unknown.
std::string ethtool_driver(const std::string& ifname);

// Reads /sys/class/net/NAME and /proc/net/vlan/NAME through fs; `driver_of` supplies the ethtool driver
// when sysfs has no device/driver link.
IfTraits read_if_traits(const Fs& fs, const std::string& name, unsigned flags,
                        const std::function<std::string(const std::string&)>& driver_of);

// Builds the facts from the entries plus sysfs; interfaces sysfs lists but getifaddrs lacks are added at the
// end.
NetFacts build_net_facts(const std::vector<IfAddrEntry>& entries, const Fs& fs,
                         const std::function<std::string(const std::string&)>& driver_of,
                         std::vector<std::string>* errors);

// The real thing: getifaddrs + sysfs + ethtool.
NetFacts probe_net(const Fs& fs, std::vector<std::string>* errors);

}  // namespace dd::probe
