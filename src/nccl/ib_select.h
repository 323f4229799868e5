// Which InfiniBand/RoCE ports NCCL's IB transport will use: a pure model of ncclIbInitDevices()
// (src/transport/net_ib.cc v2.28.9 lines 703-708 and 732-742): only ACTIVE ports with an IB or Ethernet link
// layer, matchIfList(device, port, NCCL_IB_HCA) ^ searchNot; and the RoCE GID NCCL >= 2.21 picks itself.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "nccl/if_list.h"
#include "probe/facts.h"

namespace dd::nccl {

struct IbPortRef {
  const probe::IbDevice* dev = nullptr;
  const probe::IbPort* port = nullptr;
  std::string label() const;                                    // "mlx5_0:1"
  bool roce() const { return port->link_layer == "Ethernet"; }  // else InfiniBand
};

struct IbSelection {
  IfList list;                      // NCCL_IB_HCA as NCCL parses it (empty: every device)
  std::vector<IbPortRef> active;    // every ACTIVE port with an IB or Ethernet link layer
  std::vector<IbPortRef> selected;  // the active ports NCCL_IB_HCA selects, in NCCL's order
  std::vector<std::string> down;    // "mlx5_1:1 DOWN" for every port that is not ACTIVE
};

bool ib_port_active(const probe::IbPort& p);
// A RoCE LAG device ("mlx5_bond_0").
bool ib_is_bond(const probe::IbDevice& d);

IbSelection nccl_select_ib_ports(const probe::IbFacts& ib, const std::optional<std::string>& ib_hca);

// The RoCE v2 GID NCCL >= 2.21 picks by default (IPv4-mapped first), or -1.
int nccl_default_roce_gid(const probe::IbPort& p);

// Selected ports NCCL_IB_HCA reaches only as a prefix of a longer name while it also names a device exactly
// (mlx5_1 selects mlx5_10..mlx5_17). Empty for exact ('=') and exclude ('^') lists.
std::vector<std::string> ib_prefix_overmatch(const IbSelection& sel, const probe::IbFacts& ib);

// Ports NCCL_IB_HCA names by device that are not ACTIVE (NCCL skips them). Empty for exclude lists.
std::vector<std::string> ib_named_ports_down(const IbSelection& sel, const probe::IbFacts& ib);

}  // namespace dd::nccl
