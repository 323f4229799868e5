// Pure parsing and classification for the network probe: interface kind from what sysfs shows,
// the default route from /proc/net/route and /proc/net/ipv6_route. No syscalls here.
#pragma once
#include <string>

namespace dd::probe {

// What sysfs (and the driver name) says about one interface; filled by read_if_sysfs or by a test.
struct IfTraits {
  bool loopback = false;    // IFF_LOOPBACK or ARPHRD_LOOPBACK (772)
  bool bridge = false;      // /sys/class/net/X/bridge exists
  bool bond = false;        // /sys/class/net/X/bonding exists
  bool vlan = false;        // /proc/net/vlan/X exists or uevent DEVTYPE=vlan
  bool has_device = false;  // /sys/class/net/X/device exists (backed by real hardware)
  int type = -1;            // /sys/class/net/X/type (ARPHRD_*: 1 ether, 32 infiniband, 772 loopback)
  std::string devtype;      // DEVTYPE= from uevent ("vlan", "bond", "bridge", "wlan", ...)
  std::string driver;       // device/driver link name, else the ethtool driver ("veth", "bridge", "bonding")
};

// "loopback", "docker", "bridge", "bond", "vlan", "veth", "ipoib", "ethernet" or "virtual".
// Docker: a name starting with "docker", or a bridge named br-<12 hex> (a docker network).
std::string classify_interface(const std::string& name, const IfTraits& t);

// The interface of the IPv4 default route with the lowest metric ("" when none).
std::string parse_proc_net_route(const std::string& text);

// The interface of the IPv6 default route (::/0) with the lowest metric, skipping "lo" ("" when none).
std::string parse_ipv6_route(const std::string& text);

}  // namespace dd::probe
