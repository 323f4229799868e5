// The explanations of every finding the NCCL socket interface rule (socket_ifname.cc) emits: data for
// `distdoctor explain` and the rules table.
#include "rules/node_rules.h"

namespace dd::rules {

namespace {

// The interface NCCL picks and what NCCL_SOCKET_IFNAME makes of it.
std::vector<FindingDoc> ifname_docs() {
  return {
      {"net.nccl_if.selected", "NCCL's socket interface",
       "The interface NCCL will use for its bootstrap and socket traffic, predicted with NCCL's own rules: "
       "NCCL_SOCKET_IFNAME when it is longer than one character (prefix match, '=' for exact names, '^' to "
       "exclude, comma lists, ':port' suffixes ignored), otherwise the first running interface named ib*, "
       "then one in the subnet of NCCL_COMM_ID, then anything but docker*/lo/virbr*, then docker*, lo, "
       "virbr*. "
       "Interfaces are scanned in getifaddrs order (all IPv4 addresses first, then IPv6), only running ones "
       "count, and IPv6 loopback is skipped. The evidence nccl_bootstrap_if=NAME is the prediction."},
      {"net.socket_ifname.no_match", "NCCL_SOCKET_IFNAME matches no running interface",
       "NCCL found no interface matching NCCL_SOCKET_IFNAME, so ncclCommInitRank fails with \"Bootstrap : "
       "no "
       "socket interface found\" (or \"NET/Socket : no interface found\"). Typical causes: a typo, an "
       "interface "
       "name from another machine (eth0 vs ens3f0), an interface that is down or has no carrier, or '=' "
       "exact "
       "match on a prefix. Fix: list real names from `ip -br addr` on every node."},
      {"net.socket_ifname.is_ip", "NCCL_SOCKET_IFNAME holds an IP address",
       "NCCL_SOCKET_IFNAME takes interface names (or name prefixes), never addresses. An address matches no "
       "interface, so NCCL cannot bootstrap. Use the name of the interface holding that address."},
      {"net.socket_ifname.virtual_only", "NCCL_SOCKET_IFNAME selects only loopback/docker interfaces",
       "The only interfaces NCCL_SOCKET_IFNAME selects are lo, docker* or virbr*: their addresses are local "
       "to "
       "this machine, so ranks on other nodes cannot connect and the job hangs in init. Name the interface "
       "on "
       "the network the nodes share."},
      {"net.socket_ifname.local_first", "NCCL_SOCKET_IFNAME lets lo/docker come first",
       "NCCL's bootstrap uses the first interface that NCCL_SOCKET_IFNAME selects, in getifaddrs order, "
       "where lo "
       "is normally first. An exclude list such as ^docker0 or ^eth1 still selects lo, so rank 0 listens on "
       "127.0.0.1 and the other nodes hang in init. Exclude lo as well (^docker,lo) or name the interface."},
      {"net.socket_ifname.ignored", "NCCL_SOCKET_IFNAME too short, ignored",
       "NCCL only honours NCCL_SOCKET_IFNAME when it is at least 2 characters long (strlen(env) > 1). An "
       "empty "
       "value or a single character such as \"=\" or \"^\" is silently ignored and NCCL picks an interface "
       "by "
       "itself, which may not be the one intended."},
      {"net.socket_ifname.syntax", "NCCL_SOCKET_IFNAME too long",
       "NCCL keeps at most 16 entries of NCCL_SOCKET_IFNAME, each under 64 characters; longer lists are cut "
       "and overlong entries overflow NCCL's fixed buffers."},
  };
}

// NCCL's own choice when NCCL_SOCKET_IFNAME is not set, and NCCL_COMM_ID.
std::vector<FindingDoc> auto_choice_docs() {
  return {
      {"net.nccl_auto_if.docker", "NCCL would pick a docker/virtual bridge",
       "NCCL_SOCKET_IFNAME is unset and the only running interfaces with an address are docker*/virbr* "
       "bridges, "
       "so NCCL binds there and other nodes cannot reach it. Set NCCL_SOCKET_IFNAME to the real interface."},
      {"net.nccl_auto_if.loopback", "NCCL would pick the loopback interface",
       "NCCL_SOCKET_IFNAME is unset and only lo is usable: fine for a single node, a hang for multi-node "
       "jobs. "
       "Bring up the real interface or set NCCL_SOCKET_IFNAME."},
      {"net.nccl_if.slow", "NCCL's socket interface is slower than another one",
       "NCCL moves data over TCP sockets here (no active IB/RoCE port, or IB disabled) and its automatic "
       "choice "
       "is the first usable interface, not the fastest. A faster interface exists; name it in "
       "NCCL_SOCKET_IFNAME."},
      {"net.nccl_if.none", "No usable socket interface",
       "No interface is running with an IPv4/IPv6 address, so NCCL cannot bootstrap at all."},
      {"net.nccl_comm_id.invalid", "NCCL_COMM_ID cannot be used",
       "NCCL_COMM_ID must be <ipv4>:<port>, [<ipv6>]:<port> or <hostname>:<port>. With it set, NCCL's "
       "bootstrap uses the interface in the same subnet as that address and ignores NCCL_SOCKET_IFNAME."},
      {"net.nccl_comm_id.hostname", "NCCL_COMM_ID names a host",
       "With NCCL_COMM_ID=<host>:<port> NCCL resolves the host and bootstraps on the local interface in the "
       "same "
       "subnet; distdoctor does not resolve names in its rules, so it does not predict the interface."},
      {"net.nccl_comm_id.no_subnet", "No interface in NCCL_COMM_ID's subnet",
       "With NCCL_COMM_ID set, NCCL's bootstrap listens on the local address in the same subnet as the "
       "address "
       "given; none exists here, so init fails with \"NET/Socket : No usable listening interface found\"."},
      {"net.interfaces.unknown", "Interfaces not known",
       "The network probe recorded no interface, so the interface rules could not run."}};
}

}  // namespace

std::vector<FindingDoc> socket_ifname_docs() {
  std::vector<FindingDoc> docs = ifname_docs();
  for (auto& d : auto_choice_docs()) docs.push_back(std::move(d));
  return docs;
}

}  // namespace dd::rules
