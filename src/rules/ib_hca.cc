// Rule: which InfiniBand/RoCE ports NCCL will use (NCCL_IB_HCA with NCCL's grammar; the selection model is
// nccl/ib_select.h), and what goes wrong with them: no match, a bond device, mixed IB and RoCE, RoCE without
// NCCL_IB_GID_INDEX on NCCL < 2.21 (2.21 added automatic GID selection, default -1), ports down,
// NCCL_IB_DISABLE=1 with usable ports. Evidence "nccl_ib_devs=mlx5_0:1,..." is the prediction.
#include <fmt/format.h>

#include "nccl/ib_select.h"
#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

using nccl::IbPortRef;
using nccl::IbSelection;

std::vector<std::string> labels(const std::vector<IbPortRef>& ports) {
  std::vector<std::string> out;
  for (const auto& p : ports) out.push_back(p.label());
  return out;
}

std::vector<Finding> check_no_devices(const probe::NodeFacts& f) {
  if (auto h = nccl_setting(f, "NCCL_IB_HCA")) {
    return {{"ib.hca.no_match",
             Severity::warn,
             fmt::format("NCCL_IB_HCA=\"{}\" is set but this node has no InfiniBand/RoCE device", *h),
             {describe_setting(f, "NCCL_IB_HCA")},
             "Unset NCCL_IB_HCA here, or install the RDMA driver (rdma-core, mlx5_ib)."}};
  }
  return {{"ib.none", Severity::info, "No InfiniBand/RoCE device: NCCL uses TCP sockets between nodes", {}}};
}

// NCCL_NET=Socket, NCCL_IB_DISABLE or no active port: IB is not used at all. True when that ends the check.
bool check_ib_off(const probe::NodeFacts& f, const IbSelection& sel, const std::vector<std::string>& ev,
                  std::vector<Finding>& out) {
  auto disable = nccl_setting(f, "NCCL_IB_DISABLE");
  if (disable && nccl_int_unparsed(*disable))
    out.push_back({"nccl.setting_not_a_number", Severity::warn,
                   fmt::format("NCCL_IB_DISABLE=\"{}\" is read by NCCL as 0: IB stays enabled", *disable), ev,
                   "Use 1 to disable (NCCL parses these settings with strtoll): export NCCL_IB_DISABLE=1"});
  auto net_name = nccl_setting(f, "NCCL_NET");
  if (net_name && (*net_name == "Socket" || *net_name == "socket") && !sel.active.empty()) {
    out.push_back(
        {"ib.disabled_but_active", Severity::warn,
         fmt::format("NCCL_NET={} while {} active IB/RoCE port(s) exist: NCCL uses TCP sockets between nodes",
                     *net_name, sel.active.size()),
         ev, "unset NCCL_NET   (NCCL picks IB when it is usable)"});
    return true;
  }
  if (disable && nccl_int(*disable) != 0) {
    if (!sel.active.empty())
      out.push_back(
          {"ib.disabled_but_active", Severity::warn,
           fmt::format("{} while {} active IB/RoCE port(s) exist: NCCL uses TCP sockets between nodes",
                       describe_setting(f, "NCCL_IB_DISABLE"), sel.active.size()),
           ev, "unset NCCL_IB_DISABLE   (keep it only if RDMA is known broken here)"});
    return true;
  }
  if (sel.active.empty()) {
    out.push_back({"ib.ports_down", Severity::warn,
                   fmt::format("{} RDMA device(s) but no ACTIVE port: NCCL falls back to TCP sockets",
                               f.ib.devices.size()),
                   ev,
                   "Check cables/switch and the subnet manager: ibstat; for RoCE: ip link show <netdev>"});
    return true;
  }
  return false;
}

// Bond devices and link layers among the selected ports.
void check_mix(const IbSelection& sel, const std::vector<std::string>& ev, std::vector<Finding>& out) {
  const std::string sel_labels = join(labels(sel.selected));
  bool has_bond = false, has_plain = false, has_ib = false, has_roce = false;
  for (const auto& p : sel.selected) {
    (nccl::ib_is_bond(*p.dev) ? has_bond : has_plain) = true;
    (p.roce() ? has_roce : has_ib) = true;
  }
  if (has_bond && has_plain)
    out.push_back(
        {"ib.hca.bond_mixed", Severity::warn,
         "NCCL will use a bonded RDMA device together with plain ones (" + sel_labels + ")", ev,
         "Select either the bond or the individual ports, the same on every node: export NCCL_IB_HCA==..."});
  if (has_bond && !has_plain)
    out.push_back(
        {"ib.hca.bond", Severity::info, "NCCL will use bonded RDMA device(s) (RoCE LAG): " + sel_labels, ev});
  if (has_ib && has_roce)
    out.push_back({"ib.link_layer_mix", Severity::warn,
                   "NCCL will use both InfiniBand and RoCE ports (" + sel_labels +
                       "): NCCL refuses to merge or connect them (\"incompatible devices\")",
                   ev, "Select ports of one link layer: export NCCL_IB_HCA==<the IB (or RoCE) devices>"});
}

// The RoCE GID index of the first selected RoCE port: NCCL_IB_GID_INDEX valid, or needed on NCCL < 2.21.
void check_gid(const probe::NodeFacts& f, const IbSelection& sel, const std::vector<std::string>& ev,
               std::vector<Finding>& out) {
  auto gid = nccl_setting(f, "NCCL_IB_GID_INDEX");
  int ver = nccl_min_version_code(f);
  for (const auto& p : sel.selected) {
    if (!p.roce()) continue;
    int v2 = nccl::nccl_default_roce_gid(*p.port);
    if (gid) {
      int64_t g = nccl_int(*gid, -1);
      bool exists = false;
      for (const auto& x : p.port->gids) exists = exists || x.index == g;
      if (g >= 0 && !p.port->gids.empty() && !exists) {
        out.push_back({"ib.roce.gid_index_invalid", Severity::warn,
                       fmt::format("NCCL_IB_GID_INDEX={} but {} has no GID at that index", g, p.label()), ev,
                       v2 >= 0 ? fmt::format("export NCCL_IB_GID_INDEX={}", v2) : "unset NCCL_IB_GID_INDEX"});
        return;
      }
      continue;
    }
    if (v2 < 0) continue;
    if (ver > 0 && ver < 22100)
      out.push_back(
          {"ib.roce.gid_index_missing", Severity::warn,
           fmt::format("RoCE port {} without NCCL_IB_GID_INDEX: NCCL {} uses GID 0 (RoCE v1/link-local), "
                       "RoCE v2 is at index {}",
                       p.label(), nccl_version_string(ver), v2),
           ev, fmt::format("export NCCL_IB_GID_INDEX={}", v2)});
    else
      out.push_back({"ib.roce.gid_auto", Severity::info,
                     fmt::format("RoCE port {}: NCCL {} picks the GID itself (RoCE v2 at index {})",
                                 p.label(), ver > 0 ? nccl_version_string(ver) : ">= 2.21", v2),
                     ev});
    return;
  }
}

// NCCL_IB_HCA that matches nothing (true: ends the check), over-matches by prefix, or names ports down.
bool check_hca_list(const probe::NodeFacts& f, const std::string& hca, const IbSelection& sel,
                    const std::vector<std::string>& ev, std::vector<Finding>& out) {
  if (sel.selected.empty()) {
    out.push_back(
        {"ib.hca.no_match", Severity::warn,
         fmt::format("NCCL_IB_HCA=\"{}\" matches no active port: NCCL reports \"NET/IB : No device "
                     "found\" and uses TCP sockets",
                     hca),
         ev,
         fmt::format("export NCCL_IB_HCA={}   (names from `ibv_devices`; '=' exact, '^' excludes, :PORT)",
                     sel.active.front().dev->name)});
    return true;
  }
  // A prefix that also catches longer names: NCCL_IB_HCA=mlx5_1 selects mlx5_10..mlx5_17 too.
  auto extra = nccl::ib_prefix_overmatch(sel, f.ib);
  if (!extra.empty())
    out.push_back(
        {"ib.hca.prefix_overmatch", Severity::warn,
         fmt::format("NCCL_IB_HCA=\"{}\" is a prefix match and also selects {}", hca, join(extra)), ev,
         fmt::format("export NCCL_IB_HCA=={}   ('=' makes names exact)", nccl::if_list_to_string(sel.list))});
  return false;
}

void check_named_down(const probe::NodeFacts& f, const IbSelection& sel, const std::vector<std::string>& ev,
                      std::vector<Finding>& out) {
  auto named_down = nccl::ib_named_ports_down(sel, f.ib);
  if (!named_down.empty())
    out.push_back({"ib.hca.port_down", Severity::warn,
                   "NCCL_IB_HCA names port(s) that are not active: " + join(named_down), ev,
                   "Bring the link up (ibstat) or drop it from NCCL_IB_HCA"});
}

std::vector<Finding> check_ib(const probe::NodeFacts& f, const CheckOptions&) {
  if (f.ib.devices.empty()) return check_no_devices(f);
  std::vector<Finding> out;
  auto hca = nccl_setting(f, "NCCL_IB_HCA");
  const IbSelection sel = nccl::nccl_select_ib_ports(f.ib, hca);
  std::vector<std::string> ev;
  ev.push_back("nccl_ib_devs=" +
               (sel.selected.empty() ? std::string("none") : join(labels(sel.selected), ",")));
  ev.push_back(describe_setting(f, "NCCL_IB_HCA"));
  if (!sel.down.empty()) ev.push_back("not active: " + join(sel.down));
  if (check_ib_off(f, sel, ev, out)) return out;
  if (hca && check_hca_list(f, *hca, sel, ev, out)) return out;
  check_mix(sel, ev, out);
  check_gid(f, sel, ev, out);
  if (hca) check_named_down(f, sel, ev, out);
  bool bad = false;
  for (const auto& x : out) bad = bad || x.severity >= Severity::warn;
  if (!bad)
    out.push_back(
        {"ib.ok", Severity::ok,
         fmt::format("NCCL will use {} RDMA port(s): {}", sel.selected.size(), join(labels(sel.selected))),
         ev});
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
