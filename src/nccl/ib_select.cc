// NCCL's IB port selection over recorded InfiniBand facts (see ib_select.h).
#include "nccl/ib_select.h"

#include <fmt/format.h>

namespace dd::nccl {

std::string IbPortRef::label() const { return fmt::format("{}:{}", dev->name, port->port); }

bool ib_port_active(const probe::IbPort& p) { return p.state.find("ACTIVE") != std::string::npos; }

bool ib_is_bond(const probe::IbDevice& d) { return d.name.find("bond") != std::string::npos; }

namespace {
bool usable_link(const probe::IbPort& p) {
  return p.link_layer == "InfiniBand" || p.link_layer == "Ethernet";
}
}  // namespace

IbSelection nccl_select_ib_ports(const probe::IbFacts& ib, const std::optional<std::string>& ib_hca) {
  IbSelection sel;
  sel.list = parse_if_list(ib_hca.value_or(""), kNcclMaxIbDevs);
  for (const auto& d : ib.devices) {
    for (const auto& p : d.ports) {
      if (!ib_port_active(p)) {
        sel.down.push_back(
            fmt::format("{}:{} {}", d.name, p.port, p.state.empty() ? "state unknown" : p.state));
        continue;
      }
      if (!usable_link(p)) continue;
      sel.active.push_back({&d, &p});
      if (if_list_selects(sel.list, d.name, p.port)) sel.selected.push_back({&d, &p});
    }
  }
  return sel;
}

int nccl_default_roce_gid(const probe::IbPort& p) {
  int any = -1;
  for (const auto& g : p.gids) {
    if (g.type.find("v2") == std::string::npos) continue;
    if (g.gid.find("ffff:") != std::string::npos) return g.index;  // ::ffff:a.b.c.d (IPv4)
    if (any < 0) any = g.index;
  }
  return any;
}

std::vector<std::string> ib_prefix_overmatch(const IbSelection& sel, const probe::IbFacts& ib) {
  std::vector<std::string> extra;
  if (sel.list.exact || sel.list.exclude) return extra;
  bool prefix_of_exact = false;
  for (const auto& e : sel.list.entries)
    for (const auto& d : ib.devices) prefix_of_exact = prefix_of_exact || e.prefix == d.name;
  for (const auto& p : sel.selected) {
    bool named = false;
    for (const auto& e : sel.list.entries) named = named || e.prefix == p.dev->name;
    if (!named && prefix_of_exact) extra.push_back(p.label());
  }
  return extra;
}

std::vector<std::string> ib_named_ports_down(const IbSelection& sel, const probe::IbFacts& ib) {
  std::vector<std::string> named_down;
  if (sel.list.exclude) return named_down;
  for (const auto& d : ib.devices)
    for (const auto& p : d.ports)
      for (const auto& e : sel.list.entries)
        if (!ib_port_active(p) && e.prefix == d.name && if_list_selects(sel.list, d.name, p.port)) {
          named_down.push_back(fmt::format("{}:{}", d.name, p.port));
          break;
        }
  return named_down;
}

}  // namespace dd::nccl
