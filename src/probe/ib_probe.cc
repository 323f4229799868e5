// sysfs walk of /sys/class/infiniband/<dev>/{node_type,fw_ver,ports/N/...,device/net}.
#include "probe/ib_probe.h"

#include <algorithm>

namespace dd::probe {
namespace {

std::string read_or(const Fs& fs, const std::string& path, std::vector<std::string>* errors) {
  auto r = read_trimmed(fs, path);
  if (r) return *r;
  if (errors) errors->push_back("ib: " + r.error().message());
  return "";
}

// "4: ACTIVE" -> "ACTIVE", "5: LinkUp" -> "LinkUp".
std::string strip_code(const std::string& s) {
  auto c = s.find(": ");
  return c == std::string::npos ? s : s.substr(c + 2);
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

}  // namespace

bool gid_is_zero(const std::string& gid) {
  for (char c : gid)
    if (c != '0' && c != ':') return false;
  return true;
}

namespace {

// The numeric entries of a sysfs directory ("1", "2", ...), sorted; others are skipped.
std::vector<int> numeric_entries(const Result<std::vector<std::string>>& names) {
  std::vector<int> nums;
  if (names)
    for (const auto& n : *names) try {
        nums.push_back(std::stoi(n));
      } catch (...) {
      }
  std::sort(nums.begin(), nums.end());
  return nums;
}

// The non-zero GIDs of one port with their type and netdev; adds each netdev to d.netdevs.
void read_gids(const Fs& fs, const std::string& pd, IbPort& port, IbDevice& d) {
  for (int gi : numeric_entries(fs.list(pd + "/gids"))) {
    const std::string is = std::to_string(gi);
    auto gid = read_trimmed(fs, pd + "/gids/" + is);
    if (!gid || gid_is_zero(*gid)) continue;  // unreadable entries are the unused ones (EINVAL) on RoCE
    IbGid g;
    g.index = gi;
    g.gid = *gid;
    if (auto t = read_trimmed(fs, pd + "/gid_attrs/types/" + is)) g.type = *t;
    if (auto n = read_trimmed(fs, pd + "/gid_attrs/ndevs/" + is)) g.netdev = *n;
    add_unique(d.netdevs, g.netdev);
    port.gids.push_back(std::move(g));
  }
}

IbDevice read_device(const Fs& fs, const std::string& dd, const std::string& name,
                     std::vector<std::string>* errors) {
  IbDevice d;
  d.name = name;
  d.node_type = strip_code(read_or(fs, dd + "/node_type", errors));
  d.fw_ver = read_or(fs, dd + "/fw_ver", errors);
  if (auto nets = fs.list(dd + "/device/net"))
    for (const auto& n : *nets) add_unique(d.netdevs, n);
  auto ports = fs.list(dd + "/ports");
  if (!ports) {
    if (errors) errors->push_back("ib: " + ports.error().message());
    return d;
  }
  for (int pn : numeric_entries(ports)) {
    IbPort port;
    port.port = pn;
    const std::string pd = dd + "/ports/" + std::to_string(pn);
    port.state = strip_code(read_or(fs, pd + "/state", errors));
    port.phys_state = strip_code(read_or(fs, pd + "/phys_state", errors));
    port.rate = read_or(fs, pd + "/rate", errors);
    port.link_layer = read_or(fs, pd + "/link_layer", errors);
    read_gids(fs, pd, port, d);
    d.ports.push_back(std::move(port));
  }
  return d;
}

}  // namespace

IbFacts probe_ib(const Fs& fs, std::vector<std::string>* errors) {
  IbFacts f;
  const std::string base = "/sys/class/infiniband";
  if (!fs.exists(base)) return f;
  f.sysfs_present = true;
  auto devs = fs.list(base);
  if (!devs) {
    if (errors) errors->push_back("ib: " + devs.error().message());
    return f;
  }
  for (const auto& name : *devs) f.devices.push_back(read_device(fs, base + "/" + name, name, errors));
  return f;
}

}  // namespace dd::probe
