// Model of NCCL's socket interface choice. Source read (NCCL v2.28.9; HEAD moves the same code to
// src/os/linux.cc):
//   src/misc/socket.cc findInterfaces() lines 129-192: skips entries without an address, non-IPv4/6, not
//     IFF_RUNNING (line 153), other family when NCCL_SOCKET_FAMILY is set (158), IPv6 loopback (162-165);
//     keeps the first address per interface name (dedupe, 172-187) in getifaddrs order.
//   ncclFindInterfaces() lines 355-390: NCCL_SOCKET_IFNAME used only when strlen(env) > 1 (363); otherwise
//   "ib",
//     then the NCCL_COMM_ID subnet, then "^docker,lo,virbr", "docker", "lo", "virbr" (virbr added in 2.28.3;
//     2.8-2.27 use "^docker,lo", "docker", "lo").
//   ncclFindInterfaceMatchSubnet() / matchSubnet() lines 194-260: first address in the same subnet, any
//   state. src/bootstrap.cc bootstrapNetInit() lines 93-126: with NCCL_COMM_ID the subnet match only, else
//     ncclFindInterfaces(..., maxIfs=1); none -> WARN "Bootstrap : no socket interface found".
#include "nccl/if_select.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "nccl/if_list.h"

namespace dd::nccl {

namespace {

std::string strip_prefix_len(const std::string& a) {
  auto slash = a.find('/');
  return slash == std::string::npos ? a : a.substr(0, slash);
}

int prefix_len(const std::string& a, int family) {
  auto slash = a.find('/');
  int max = family == 4 ? 32 : 128;
  if (slash == std::string::npos) return max;
  try {
    int n = std::stoi(a.substr(slash + 1));
    return std::clamp(n, 0, max);
  } catch (...) {
    return max;
  }
}

// Parses a numeric address into 16 bytes (IPv4 in the first 4). Returns the family (4/6) or 0.
int parse_addr(const std::string& s, std::array<unsigned char, 16>& out) {
  out.fill(0);
  if (inet_pton(AF_INET, s.c_str(), out.data()) == 1) return 4;
  std::string v6 = s.substr(0, s.find('%'));
  if (inet_pton(AF_INET6, v6.c_str(), out.data()) == 1) return 6;
  return 0;
}

bool same_subnet(const std::string& local_cidr, int family, const std::array<unsigned char, 16>& remote,
                 int remote_family) {
  if (family != remote_family) return false;
  std::array<unsigned char, 16> local;
  if (parse_addr(strip_prefix_len(local_cidr), local) != family) return false;
  // matchSubnet compares scope ids too: a link-local local address has the interface's scope, the remote
  // none.
  if (family == 6 && local[0] == 0xfe && (local[1] & 0xc0) == 0x80) return false;
  int bits = prefix_len(local_cidr, family);
  for (int b = 0; b < (family == 4 ? 32 : 128); b++) {
    if (b >= bits) break;
    int byte = b / 8, mask = 0x80 >> (b % 8);
    if ((local[byte] & mask) != (remote[byte] & mask)) return false;
  }
  return true;
}

bool is_v6_loopback(const std::string& addr) {
  std::array<unsigned char, 16> a;
  if (parse_addr(addr, a) != 6) return false;
  for (int i = 0; i < 15; i++)
    if (a[i]) return false;
  return a[15] == 1;
}

// NCCL_COMM_ID "<ip>:<port>" or "[<ipv6>]:<port>": the numeric address, or family 0 when it is not numeric
// (a hostname would need name resolution, which a rule does not do).
int parse_comm_id(const std::string& v, std::array<unsigned char, 16>& out) {
  if (v.size() > 1 && v[0] == '[') {
    auto close = v.find(']');
    if (close == std::string::npos) return 0;
    return parse_addr(v.substr(1, close - 1), out) == 6 ? 6 : 0;
  }
  std::string host = v.substr(0, v.find_first_of(":,"));  // parseStringList's first entry
  return parse_addr(host, out) == 4 ? 4 : 0;
}

// What ncclSocketGetAddrFromString() rejects outright: fewer than 2 characters, "[" without "]", no host
// part.
bool comm_id_malformed(const std::string& v) {
  if (v.size() <= 1) return true;
  if (v[0] == '[') return v.find(']') == std::string::npos;
  return v.find_first_of(":,") == 0;
}

// The numeric NCCL_COMM_ID address (its family, 4 or 6) for the subnet match; 0 when there is none, after
// setting sel.error (NCCL rejects the value) or sel.unpredictable (a host name NCCL would resolve).
int comm_id_address(const std::string& v, std::array<unsigned char, 16>& out, IfSelection& sel) {
  int rf = v.size() > 1 ? parse_comm_id(v, out) : 0;
  if (rf != 0) return rf;
  if (comm_id_malformed(v))
    sel.error = "NCCL_COMM_ID \"" + v + "\" is not <ip>:<port>, [<ipv6>]:<port> or <host>:<port>";
  else
    sel.unpredictable = true;
  return 0;
}

// ncclFindInterfaceMatchSubnet(): the first address (any interface state) in the same subnet as `remote`.
std::optional<IfCandidate> first_subnet_match(const probe::NetFacts& net,
                                              const std::array<unsigned char, 16>& remote, int rf) {
  for (const auto& e : getifaddrs_entries(net)) {
    for (const auto& c : e.family == 4 ? e.iface->ipv4 : e.iface->ipv6) {
      if (strip_prefix_len(c) == e.addr && same_subnet(c, e.family, remote, rf)) return e;
    }
  }
  return std::nullopt;
}

}  // namespace

int nccl_socket_family(const std::optional<std::string>& v) {
  if (!v) return 0;
  if (*v == "AF_INET") return 4;
  if (*v == "AF_INET6") return 6;
  return 0;
}

std::vector<IfCandidate> getifaddrs_entries(const probe::NetFacts& net) {
  std::vector<const probe::NetInterface*> ifs;
  for (const auto& i : net.interfaces) ifs.push_back(&i);
  std::stable_sort(ifs.begin(), ifs.end(), [](auto* a, auto* b) { return a->order < b->order; });
  std::vector<IfCandidate> out;
  for (int fam : {4, 6}) {
    for (const auto* i : ifs) {
      for (const auto& a : fam == 4 ? i->ipv4 : i->ipv6)
        out.push_back({i->name, strip_prefix_len(a), fam, i});
    }
  }
  return out;
}

std::vector<IfCandidate> nccl_find_interfaces(const probe::NetFacts& net, const std::string& prefix_list,
                                              int family, int max_ifs) {
  IfList list = parse_if_list(prefix_list, kNcclMaxIfs);
  std::vector<IfCandidate> found;
  for (const auto& e : getifaddrs_entries(net)) {
    if (static_cast<int>(found.size()) >= max_ifs) break;
    if (!e.iface->running) continue;
    if (family != 0 && e.family != family) continue;
    if (e.family == 6 && is_v6_loopback(e.addr)) continue;
    if (!if_list_selects(list, e.name)) continue;
    bool dup =
        std::any_of(found.begin(), found.end(), [&](const IfCandidate& c) { return c.name == e.name; });
    if (!dup) found.push_back(e);
  }
  return found;
}

IfSelection nccl_select_interfaces(const IfSelectInput& in, int max_ifs) {
  IfSelection sel;
  static const probe::NetFacts kEmpty;
  const probe::NetFacts& net = in.net ? *in.net : kEmpty;
  int family = nccl_socket_family(in.socket_family);
  if (in.socket_ifname && in.socket_ifname->size() > 1) {
    sel.user_list = true;
    sel.stage = "NCCL_SOCKET_IFNAME";
    sel.matched = nccl_find_interfaces(net, *in.socket_ifname, family, max_ifs);
    return sel;
  }
  sel.ignored_short = in.socket_ifname.has_value();
  auto step = [&](const std::string& list) {
    if (sel.found()) return;
    sel.stage = list;
    sel.matched = nccl_find_interfaces(net, list, family, max_ifs);
  };
  step("ib");
  if (!sel.found() && in.comm_id && in.comm_id->size() > 1) {
    std::array<unsigned char, 16> remote;
    int rf = comm_id_address(*in.comm_id, remote, sel);
    if (auto m = rf ? first_subnet_match(net, remote, rf) : std::nullopt) {
      sel.stage = "NCCL_COMM_ID";
      sel.matched = {*m};
    }
  }
  bool virbr = in.nccl_version_code < 0 || in.nccl_version_code >= 22803;
  step(virbr ? "^docker,lo,virbr" : "^docker,lo");
  step("docker");
  step("lo");
  if (virbr) step("virbr");
  return sel;
}

IfSelection nccl_bootstrap_interface(const IfSelectInput& in) {
  if (in.comm_id) {
    IfSelection sel;
    sel.stage = "NCCL_COMM_ID";
    std::array<unsigned char, 16> remote;
    int rf = comm_id_address(*in.comm_id, remote, sel);
    if (rf == 0) return sel;
    static const probe::NetFacts kEmpty;
    if (auto m = first_subnet_match(in.net ? *in.net : kEmpty, remote, rf)) sel.matched = {*m};
    return sel;
  }
  return nccl_select_interfaces(in, 1);
}

bool nccl_if_list_selects(const std::string& list, const std::string& name) {
  return if_list_selects(parse_if_list(list, kNcclMaxIfs), name);
}

}  // namespace dd::nccl
