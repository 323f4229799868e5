// Which socket interface(s) NCCL will use on this node: a pure model of ncclFindInterfaces() and of the
// bootstrap's choice (bootstrapNetInit), evaluated over recorded interface facts.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "probe/facts.h"

namespace dd::nccl {

struct IfSelectInput {
  const probe::NetFacts* net = nullptr;
  std::optional<std::string> socket_ifname;  // NCCL_SOCKET_IFNAME (nullopt = unset)
  std::optional<std::string> socket_family;  // NCCL_SOCKET_FAMILY ("AF_INET", "AF_INET6", other = any)
  std::optional<std::string> comm_id;        // NCCL_COMM_ID
  int nccl_version_code = -1;                // decides the virbr step (2.28.3+); -1 unknown = newest
};

struct IfCandidate {
  std::string name;
  std::string addr;  // without the prefix length: "198.18.0.1", "fd00::1"
  int family = 4;    // 4 or 6
  const probe::NetInterface* iface = nullptr;
};

struct IfSelection {
  bool user_list = false;      // NCCL_SOCKET_IFNAME in force (set and longer than 1 character)
  bool ignored_short = false;  // NCCL_SOCKET_IFNAME set but 0 or 1 characters: NCCL ignores it
  std::string stage;  // which step found them: "NCCL_SOCKET_IFNAME", "ib", "NCCL_COMM_ID", "^docker,lo", ...
  std::vector<IfCandidate> matched;  // what NCCL keeps, in its order (first = bootstrap interface)
  std::string error;                 // set when NCCL itself would stop with an error (bad NCCL_COMM_ID)
  bool unpredictable = false;        // NCCL_COMM_ID names a host: NCCL resolves it, a pure rule cannot
  bool found() const { return !matched.empty(); }
};

// Address entries as getifaddrs() returns them: all IPv4 addresses (interfaces in scan order), then all IPv6.
std::vector<IfCandidate> getifaddrs_entries(const probe::NetFacts& net);

// One findInterfaces(prefixList, ...) call: running interfaces, family filter, IPv6 loopback skipped,
// deduped.
std::vector<IfCandidate> nccl_find_interfaces(const probe::NetFacts& net, const std::string& prefix_list,
                                              int family, int max_ifs);

// ncclFindInterfaces(): NCCL_SOCKET_IFNAME or the automatic order (ib, NCCL_COMM_ID subnet, not
// docker/lo/virbr, docker, lo, virbr). Used by the socket transport (max_ifs = 16) and IB's OOB interface
// (max_ifs = 1).
IfSelection nccl_select_interfaces(const IfSelectInput& in, int max_ifs = 16);

// bootstrapNetInit(): with NCCL_COMM_ID the interface in the same subnet as that address (NCCL_SOCKET_IFNAME
// is then not consulted); otherwise the first interface of nccl_select_interfaces().
IfSelection nccl_bootstrap_interface(const IfSelectInput& in);

// True when the NCCL_SOCKET_IFNAME-style `list` ("eth", "^docker,lo", "=eth0:1234") selects interface
// `name`.
bool nccl_if_list_selects(const std::string& list, const std::string& name);

// "AF_INET" -> 4, "AF_INET6" -> 6, anything else (or unset) -> 0 (any family).
int nccl_socket_family(const std::optional<std::string>& v);

}  // namespace dd::nccl
