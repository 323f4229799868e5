// Rule: which InfiniBand/RoCE ports NCCL will use (NCCL_IB_HCA with NCCL's grammar, as in
// ncclIbInitDevices(): src/transport/net_ib.cc v2.28.9 lines 703-708 and 732-742: only ACTIVE ports with an
// IB or Ethernet link layer, matchIfList(device, port, ...) ^ searchNot), and what goes wrong with them: no
// match, a bond device, mixed IB and RoCE, RoCE without NCCL_IB_GID_INDEX on NCCL < 2.21 (2.21 added
// automatic GID selection, default -1), ports down, NCCL_IB_DISABLE=1 with usable ports. Evidence
// "nccl_ib_devs=mlx5_0:1,..." is the prediction.
#include <fmt/format.h>

#include "nccl/if_list.h"
#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

struct Port {
  const probe::IbDevice* dev;
  const probe::IbPort* port;
  std::string label() const { return fmt::format("{}:{}", dev->name, port->port); }
  bool roce() const { return port->link_layer == "Ethernet"; }
};

bool active(const probe::IbPort& p) { return p.state.find("ACTIVE") != std::string::npos; }
bool usable_link(const probe::IbPort& p) {
  return p.link_layer == "InfiniBand" || p.link_layer == "Ethernet";
}
bool is_bond(const probe::IbDevice& d) { return d.name.find("bond") != std::string::npos; }

// The RoCE v2 GID NCCL >= 2.21 picks by default (IPv4-mapped first), or -1.
int roce_v2_gid(const probe::IbPort& p) {
  int any = -1;
  for (const auto& g : p.gids) {
    if (g.type.find("v2") == std::string::npos) continue;
    if (g.gid.find("ffff:") != std::string::npos) return g.index;  // ::ffff:a.b.c.d (IPv4)
    if (any < 0) any = g.index;
  }
  return any;
}

std::vector<Finding> check_ib(const probe::NodeFacts& f, const CheckOptions&) {
  std::vector<Finding> out;
  if (f.ib.devices.empty()) {
    if (auto h = nccl_setting(f, "NCCL_IB_HCA")) {
      return {{"ib.hca.no_match",
               Severity::warn,
               fmt::format("NCCL_IB_HCA=\"{}\" is set but this node has no InfiniBand/RoCE device", *h),
               {describe_setting(f, "NCCL_IB_HCA")},
               "Unset NCCL_IB_HCA here, or install the RDMA driver (rdma-core, mlx5_ib)."}};
    }
    return {
        {"ib.none", Severity::info, "No InfiniBand/RoCE device: NCCL uses TCP sockets between nodes", {}}};
  }
  std::vector<Port> all_active, selected;
  std::vector<std::string> down;
  auto hca = nccl_setting(f, "NCCL_IB_HCA");
  nccl::IfList list = nccl::parse_if_list(hca.value_or(""), nccl::kNcclMaxIbDevs);
  for (const auto& d : f.ib.devices) {
    for (const auto& p : d.ports) {
      if (!active(p)) {
        down.push_back(fmt::format("{}:{} {}", d.name, p.port, p.state.empty() ? "state unknown" : p.state));
        continue;
      }
      if (!usable_link(p)) continue;
      all_active.push_back({&d, &p});
      if (nccl::if_list_selects(list, d.name, p.port)) selected.push_back({&d, &p});
    }
  }
  std::vector<std::string> sel_labels, ev;
  for (const auto& p : selected) sel_labels.push_back(p.label());
  ev.push_back("nccl_ib_devs=" + (selected.empty() ? std::string("none") : join(sel_labels, ",")));
  ev.push_back(describe_setting(f, "NCCL_IB_HCA"));
  if (!down.empty()) ev.push_back("not active: " + join(down));
  int ver = nccl_min_version_code(f);

  auto disable = nccl_setting(f, "NCCL_IB_DISABLE");
  if (disable && nccl_int_unparsed(*disable))
    out.push_back({"nccl.setting_not_a_number", Severity::warn,
                   fmt::format("NCCL_IB_DISABLE=\"{}\" is read by NCCL as 0: IB stays enabled", *disable), ev,
                   "Use 1 to disable (NCCL parses these settings with strtoll): export NCCL_IB_DISABLE=1"});
  auto net_name = nccl_setting(f, "NCCL_NET");
  if (net_name && (*net_name == "Socket" || *net_name == "socket") && !all_active.empty()) {
    out.push_back(
        {"ib.disabled_but_active", Severity::warn,
         fmt::format("NCCL_NET={} while {} active IB/RoCE port(s) exist: NCCL uses TCP sockets between nodes",
                     *net_name, all_active.size()),
         ev, "unset NCCL_NET   (NCCL picks IB when it is usable)"});
    return out;
  }
  if (disable && nccl_int(*disable) != 0) {
    if (!all_active.empty())
      out.push_back(
          {"ib.disabled_but_active", Severity::warn,
           fmt::format("{} while {} active IB/RoCE port(s) exist: NCCL uses TCP sockets between nodes",
                       describe_setting(f, "NCCL_IB_DISABLE"), all_active.size()),
           ev, "unset NCCL_IB_DISABLE   (keep it only if RDMA is known broken here)"});
    return out;
  }
  if (all_active.empty()) {
    out.push_back({"ib.ports_down", Severity::warn,
                   fmt::format("{} RDMA device(s) but no ACTIVE port: NCCL falls back to TCP sockets",
                               f.ib.devices.size()),
                   ev,
                   "Check cables/switch and the subnet manager: ibstat; for RoCE: ip link show <netdev>"});
    return out;
  }
  if (hca && selected.empty()) {
    out.push_back(
        {"ib.hca.no_match", Severity::warn,
         fmt::format("NCCL_IB_HCA=\"{}\" matches no active port: NCCL reports \"NET/IB : No device "
                     "found\" and uses TCP sockets",
                     *hca),
         ev,
         fmt::format("export NCCL_IB_HCA={}   (names from `ibv_devices`; '=' exact, '^' excludes, :PORT)",
                     all_active.front().dev->name)});
    return out;
  }
  // A prefix that also catches longer names: NCCL_IB_HCA=mlx5_1 selects mlx5_10..mlx5_17 too.
  if (hca && !list.exact && !list.exclude) {
    std::vector<std::string> extra;
    for (const auto& p : selected) {
      bool named = false;
      for (const auto& e : list.entries) named = named || e.prefix == p.dev->name;
      bool prefix_of_exact = false;
      for (const auto& e : list.entries)
        for (const auto& d : f.ib.devices) prefix_of_exact = prefix_of_exact || e.prefix == d.name;
      if (!named && prefix_of_exact) extra.push_back(p.label());
    }
    if (!extra.empty())
      out.push_back(
          {"ib.hca.prefix_overmatch", Severity::warn,
           fmt::format("NCCL_IB_HCA=\"{}\" is a prefix match and also selects {}", *hca, join(extra)), ev,
           fmt::format("export NCCL_IB_HCA=={}   ('=' makes names exact)", nccl::if_list_to_string(list))});
  }
  bool has_bond = false, has_plain = false, has_ib = false, has_roce = false;
  for (const auto& p : selected) {
    (is_bond(*p.dev) ? has_bond : has_plain) = true;
    (p.roce() ? has_roce : has_ib) = true;
  }
  if (has_bond && has_plain)
    out.push_back(
        {"ib.hca.bond_mixed", Severity::warn,
         "NCCL will use a bonded RDMA device together with plain ones (" + join(sel_labels) + ")", ev,
         "Select either the bond or the individual ports, the same on every node: export NCCL_IB_HCA==..."});
  if (has_bond && !has_plain)
    out.push_back({"ib.hca.bond", Severity::info,
                   "NCCL will use bonded RDMA device(s) (RoCE LAG): " + join(sel_labels), ev});
  if (has_ib && has_roce)
    out.push_back({"ib.link_layer_mix", Severity::warn,
                   "NCCL will use both InfiniBand and RoCE ports (" + join(sel_labels) +
                       "): NCCL refuses to merge or connect them (\"incompatible devices\")",
                   ev, "Select ports of one link layer: export NCCL_IB_HCA==<the IB (or RoCE) devices>"});
  // RoCE GID index.
  auto gid = nccl_setting(f, "NCCL_IB_GID_INDEX");
  for (const auto& p : selected) {
    if (!p.roce()) continue;
    int v2 = roce_v2_gid(*p.port);
    if (gid) {
      int64_t g = nccl_int(*gid, -1);
      bool exists = false;
      for (const auto& x : p.port->gids) exists = exists || x.index == g;
      if (g >= 0 && !p.port->gids.empty() && !exists) {
        out.push_back({"ib.roce.gid_index_invalid", Severity::warn,
                       fmt::format("NCCL_IB_GID_INDEX={} but {} has no GID at that index", g, p.label()), ev,
                       v2 >= 0 ? fmt::format("export NCCL_IB_GID_INDEX={}", v2) : "unset NCCL_IB_GID_INDEX"});
        break;
      }
      continue;
    }
    if (v2 < 0) continue;
    if (ver > 0 && ver < 22100) {
      out.push_back(
          {"ib.roce.gid_index_missing", Severity::warn,
           fmt::format("RoCE port {} without NCCL_IB_GID_INDEX: NCCL {} uses GID 0 (RoCE v1/link-local), "
                       "RoCE v2 is at index {}",
                       p.label(), nccl_version_string(ver), v2),
           ev, fmt::format("export NCCL_IB_GID_INDEX={}", v2)});
    } else {
      out.push_back({"ib.roce.gid_auto", Severity::info,
                     fmt::format("RoCE port {}: NCCL {} picks the GID itself (RoCE v2 at index {})",
                                 p.label(), ver > 0 ? nccl_version_string(ver) : ">= 2.21", v2),
                     ev});
    }
    break;
  }
  if (hca && !list.exclude) {
    std::vector<std::string> named_down;
    for (const auto& d : f.ib.devices)
      for (const auto& p : d.ports)
        for (const auto& e : list.entries)
          if (!active(p) && e.prefix == d.name && nccl::if_list_selects(list, d.name, p.port)) {
            named_down.push_back(fmt::format("{}:{}", d.name, p.port));
            break;
          }
    if (!named_down.empty())
      out.push_back({"ib.hca.port_down", Severity::warn,
                     "NCCL_IB_HCA names port(s) that are not active: " + join(named_down), ev,
                     "Bring the link up (ibstat) or drop it from NCCL_IB_HCA"});
  }
  bool bad = false;
  for (const auto& x : out) bad = bad || x.severity >= Severity::warn;
  if (!bad)
    out.push_back({"ib.ok", Severity::ok,
                   fmt::format("NCCL will use {} RDMA port(s): {}", selected.size(), join(sel_labels)), ev});
  return out;
}

}  // namespace

NodeRule ib_hca_rule() {
  return {
      "ib.hca",
      check_ib,
      {{"ib.ok", "RDMA ports NCCL will use",
        "NCCL's IB transport uses every ACTIVE port with an InfiniBand or Ethernet (RoCE) link layer that "
        "NCCL_IB_HCA selects. NCCL_IB_HCA uses the same grammar as NCCL_SOCKET_IFNAME: prefixes, '=' exact "
        "names, '^' to exclude, and device:port entries (mlx5_0:1). Evidence nccl_ib_devs lists them."},
       {"ib.none", "No RDMA device", "No /sys/class/infiniband device: inter-node traffic goes over TCP."},
       {"ib.hca.no_match", "NCCL_IB_HCA matches no active port",
        "NCCL_IB_HCA selects no ACTIVE port, so NCCL reports \"NET/IB : No device found\" and silently falls "
        "back to TCP sockets: multi-node bandwidth drops by an order of magnitude. A port suffix such as "
        "mlx5_0: (empty) or a typo also matches nothing."},
       {"ib.hca.prefix_overmatch", "NCCL_IB_HCA prefix selects more devices",
        "Without '=' every entry is a prefix: mlx5_1 also selects mlx5_10 to mlx5_17. Use =mlx5_1 for exact "
        "names."},
       {"ib.hca.bond_mixed", "Bond and plain RDMA devices together",
        "A RoCE LAG device (mlx5_bond_N) already aggregates its member ports; using it together with plain "
        "devices gives NCCL NICs of unequal speed and usually differs between nodes."},
       {"ib.hca.bond", "Bonded RDMA device in use",
        "A RoCE LAG device (mlx5_bond_N) aggregates two ports; NCCL sees one NIC. Make sure every node uses "
        "the "
        "same kind of device, or NCCL's topology and ring choices differ between nodes."},
       {"ib.link_layer_mix", "InfiniBand and RoCE ports mixed",
        "NCCL cannot connect an InfiniBand port to a RoCE port (\"Attempted to connect incompatible "
        "devices\"). "
        "Select ports of one link layer with NCCL_IB_HCA."},
       {"ib.roce.gid_index_missing", "RoCE without NCCL_IB_GID_INDEX on old NCCL",
        "NCCL before 2.21 uses GID index 0 unless NCCL_IB_GID_INDEX is set; index 0 is usually RoCE v1 or a "
        "link-local GID, which fails or hangs across subnets. Set NCCL_IB_GID_INDEX to the RoCE v2 IPv4 GID "
        "(show_gids). NCCL 2.21+ selects a RoCE v2 GID automatically."},
       {"ib.roce.gid_auto", "RoCE GID chosen by NCCL",
        "NCCL 2.21 and later pick the GID index themselves (RoCE v2, IPv4 first), so NCCL_IB_GID_INDEX is "
        "not "
        "needed."},
       {"ib.roce.gid_index_invalid", "NCCL_IB_GID_INDEX names no GID",
        "NCCL_IB_GID_INDEX points at an empty GID table entry on a port NCCL uses; QP setup fails."},
       {"ib.hca.port_down", "NCCL_IB_HCA names a port that is down",
        "A port named in NCCL_IB_HCA is not ACTIVE; NCCL skips it."},
       {"ib.ports_down", "No active RDMA port",
        "RDMA devices exist but no port is ACTIVE (cable, switch, subnet manager, or RoCE netdev down): NCCL "
        "uses TCP sockets."},
       {"ib.disabled_but_active", "NCCL_IB_DISABLE set with usable RDMA",
        "NCCL_IB_DISABLE=1 turns the IB/RoCE transport off although active ports exist; inter-node traffic "
        "then goes over TCP sockets, typically 10x slower. Often left over from a debugging session."}}};
}

}  // namespace dd::rules
