// A minimal prediction of the interfaces NCCL's socket code picks (NCCL_SOCKET_IFNAME grammar: prefix list,
// '^' to exclude, '=' for exact names; default order ib, then ^docker,lo,virbr, then docker, lo, virbr).
// Stand-in until the rules module rules/nccl_ifselect lands; kept to the cases the cluster rules need.
#pragma once
#include <string>
#include <vector>

#include "probe/facts.h"

namespace dd::cluster {

// True when `name` matches the NCCL_SOCKET_IFNAME-style list (without the leading ^ / = handled here too).
bool nccl_if_matches(const std::string& name, const std::string& list);

// Interfaces NCCL would use, best first, given the NCCL_SOCKET_IFNAME value ("" = unset).
// Only interfaces that are up and running with an address count (NCCL skips others).
std::vector<probe::NetInterface> guess_nccl_ifs(const probe::NetFacts& net, const std::string& setting);

// First IPv4 (else IPv6) address of an interface without the prefix length, "" if none.
std::string first_addr(const probe::NetInterface& i);

}  // namespace dd::cluster
