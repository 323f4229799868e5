// Interface classification and route-table parsing.
#include "probe/net_parse.h"

#include <cctype>
#include <climits>
#include <sstream>
#include <vector>

namespace dd::probe {
namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

bool is_docker_bridge_name(const std::string& n) {
  if (!starts_with(n, "br-") || n.size() != 15) return false;
  for (size_t i = 3; i < n.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(n[i]))) return false;
  return true;
}

std::vector<std::string> fields(const std::string& line) {
  std::istringstream ss(line);
  std::vector<std::string> f;
  std::string w;
  while (ss >> w) f.push_back(w);
  return f;
}

long long parse_hex(const std::string& s) {
  try {
    return std::stoll(s, nullptr, 16);
  } catch (...) {
    return -1;
  }
}

}  // namespace

std::string classify_interface(const std::string& name, const IfTraits& t) {
  if (t.loopback || t.type == 772) return "loopback";
  const bool bridge = t.bridge || t.devtype == "bridge" || t.driver == "bridge";
  if (starts_with(name, "docker") || (bridge && is_docker_bridge_name(name))) return "docker";
  if (bridge) return "bridge";
  if (t.bond || t.devtype == "bond" || t.driver == "bonding") return "bond";
  if (t.vlan || t.devtype == "vlan" || t.driver == "802.1Q VLAN Support") return "vlan";
  if (t.driver == "veth" || (t.driver.empty() && !t.has_device && starts_with(name, "veth"))) return "veth";
  if (t.type == 32) return "ipoib";
  if (t.has_device) return "ethernet";
  return "virtual";
}

std::string parse_proc_net_route(const std::string& text) {
  // Iface Destination Gateway Flags RefCnt Use Metric Mask MTU Window IRTT  (hex, host byte order)
  std::istringstream in(text);
  std::string line, best;
  long long best_metric = LLONG_MAX;
  while (std::getline(in, line)) {
    auto f = fields(line);
    if (f.size() < 8 || f[0] == "Iface") continue;
    long long flags = parse_hex(f[3]);
    if (f[1] != "00000000" || f[7] != "00000000" || flags < 0 || !(flags & 0x1)) continue;  // RTF_UP
    long long metric = 0;
    try {
      metric = std::stoll(f[6]);
    } catch (...) {
      continue;
    }
    if (metric < best_metric) {
      best_metric = metric;
      best = f[0];
    }
  }
  return best;
}

std::string parse_ipv6_route(const std::string& text) {
  // dest dest_plen src src_plen next_hop metric refcnt use flags ifname  (all hex)
  std::istringstream in(text);
  std::string line, best;
  long long best_metric = LLONG_MAX;
  while (std::getline(in, line)) {
    auto f = fields(line);
    if (f.size() < 10) continue;
    if (f[0] != std::string(32, '0') || f[1] != "00" || f[9] == "lo") continue;
    long long flags = parse_hex(f[8]);
    if (flags < 0 || !(flags & 0x1) || (flags & 0x0200)) continue;  // RTF_UP, not RTF_REJECT
    long long metric = parse_hex(f[5]);
    if (metric >= 0 && metric < best_metric) {
      best_metric = metric;
      best = f[9];
    }
  }
  return best;
}

}  // namespace dd::probe
