// NCCL's interface/HCA list grammar (NCCL_SOCKET_IFNAME, NCCL_IB_HCA), modelled on NCCL's own parser:
// optional leading '^' (exclude), then optional '=' (exact names), then a comma list of prefixes, each with
// an optional ':port' suffix. See if_list.cc for the NCCL source lines this follows.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace dd::nccl {

// NCCL's list sizes: MAX_IFS (src/include/socket.h) for sockets, MAX_IB_DEVS (src/transport/net_ib.cc) for
// HCAs.
inline constexpr int kNcclMaxIfs = 16;
inline constexpr int kNcclMaxIbDevs = 32;
// struct netIf { char prefix[64]; ... }: an entry of 64+ characters overflows NCCL's buffer.
inline constexpr size_t kNcclPrefixMax = 63;

struct IfListEntry {
  std::string prefix;
  int port = -1;  // -1: no ':port' suffix (matches every port)
};

struct IfList {
  bool exclude = false;              // leading '^'
  bool exact = false;                // '=' (after the optional '^')
  std::vector<IfListEntry> entries;  // what NCCL keeps (at most max_entries)
  int dropped = 0;                   // entries NCCL never reads (beyond max_entries)
  bool overlong = false;             // an entry longer than kNcclPrefixMax (NCCL overflows a fixed buffer)
};

// Parses like NCCL: empty entries are skipped, a ':' ends the entry and the rest up to ',' is atoi'ed as a
// port.
IfList parse_if_list(std::string_view s, int max_entries);

// NCCL's matchIfList(...) ^ searchNot: true when NCCL would use `name` (port: -1 for sockets, the port for
// IB). An empty list matches every name (so "^" or "^=" alone match nothing, "," alone matches everything).
bool if_list_selects(const IfList& l, std::string_view name, int port = -1);

// The list written back in NCCL's syntax ("^=eth0,eth1").
std::string if_list_to_string(const IfList& l);

}  // namespace dd::nccl
