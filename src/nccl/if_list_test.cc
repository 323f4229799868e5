// NCCL's list grammar and interface selection, case by case against NCCL v2.28.9's semantics:
// src/misc/utils.cc parseStringList (136-166), matchIf (168-172), matchPort (174-179), matchIfList (182-193);
// src/misc/socket.cc findInterfaces (129-192), ncclFindInterfaces (355-390); src/bootstrap.cc
// bootstrapNetInit.
#include "nccl/if_list.h"

#include <gtest/gtest.h>

#include "nccl/if_select.h"
#include "rules/test_facts.h"

namespace dd::nccl {
namespace {

using namespace dd::rules::testing;

bool sel(const std::string& list, const std::string& name, int port = -1) {
  return if_list_selects(parse_if_list(list, kNcclMaxIbDevs), name, port);
}

TEST(NcclIfList, PrefixMatch) {
  EXPECT_TRUE(sel("eth", "eth0"));
  EXPECT_TRUE(sel("eth", "eth10"));
  EXPECT_FALSE(sel("eth", "ens3"));
  EXPECT_FALSE(sel("eth0", "eth"));  // strncmp(name, ref, strlen(ref)): the name must be at least as long
  EXPECT_TRUE(sel("mlx5_1", "mlx5_10"));
}

TEST(NcclIfList, ExactAndExclude) {
  EXPECT_TRUE(sel("=eth0", "eth0"));
  EXPECT_FALSE(sel("=eth0", "eth00"));
  EXPECT_FALSE(sel("^docker,lo", "docker0"));
  EXPECT_FALSE(sel("^docker,lo", "lo"));
  EXPECT_FALSE(sel("^docker,lo", "loop1"));  // prefix "lo"
  EXPECT_TRUE(sel("^docker,lo", "eth0"));
  EXPECT_FALSE(sel("^=eth0", "eth0"));
  EXPECT_TRUE(sel("^=eth0", "eth01"));
  // '=' must come after '^': "=^eth0" is an exact match on the literal name "^eth0".
  EXPECT_FALSE(sel("=^eth0", "eth0"));
  EXPECT_TRUE(sel("=^eth0", "^eth0"));
}

TEST(NcclIfList, EmptyListsMatchEverythingUnlessExcluded) {
  EXPECT_TRUE(sel("", "eth0"));  // nUserIfs == 0 -> matchIfList returns true
  EXPECT_TRUE(sel(",", "eth0"));
  EXPECT_TRUE(sel(",,", "lo"));
  EXPECT_TRUE(sel("=", "eth0"));
  EXPECT_FALSE(sel("^", "eth0"));  // true ^ searchNot
  EXPECT_FALSE(sel("^=", "eth0"));
  EXPECT_FALSE(sel("^,", "eth0"));
  EXPECT_TRUE(sel("^^", "eth0"));  // the second '^' is a literal prefix that matches nothing, then negated
}

TEST(NcclIfList, PortsAndEmptyEntries) {
  IfList l = parse_if_list(",eth0,,eth1,", kNcclMaxIfs);
  ASSERT_EQ(l.entries.size(), 2u);
  EXPECT_EQ(l.entries[1].prefix, "eth1");
  l = parse_if_list(":1,eth0", kNcclMaxIfs);  // ':' with no name: entry skipped
  ASSERT_EQ(l.entries.size(), 1u);
  EXPECT_EQ(l.entries[0].prefix, "eth0");
  l = parse_if_list("mlx5_0:1,mlx5_1:2", kNcclMaxIbDevs);
  ASSERT_EQ(l.entries.size(), 2u);
  EXPECT_EQ(l.entries[0].port, 1);
  EXPECT_EQ(l.entries[1].port, 2);
  EXPECT_TRUE(sel("mlx5_0:1,mlx5_1:2", "mlx5_0", 1));
  EXPECT_FALSE(sel("mlx5_0:1,mlx5_1:2", "mlx5_0", 2));
  EXPECT_TRUE(sel("mlx5_0:1,mlx5_1:2", "mlx5_1", 2));
  EXPECT_FALSE(sel("mlx5_0:", "mlx5_0", 1));  // atoi("") == 0: port 0 matches no real port
  EXPECT_FALSE(sel("mlx5_0:abc", "mlx5_0", 1));
  EXPECT_TRUE(sel("eth0:1234", "eth0"));  // sockets pass port -1: suffix ignored
  EXPECT_EQ(if_list_to_string(parse_if_list("^=a:1,b", 4)), "^=a:1,b");
}

// Found by fuzz/env_grammar.cc: ",^a" is the prefix "^a" in an include list, but was written back as "^a",
// which NCCL reads as excluding "a".
TEST(NcclIfList, WrittenBackListMeansTheSame) {
  for (const char* v : {",^a", ",=a", "^,=a:1", "=,^a,b"}) {
    IfList l = parse_if_list(v, 16), back = parse_if_list(if_list_to_string(l), 16);
    EXPECT_EQ(back.exclude, l.exclude) << v;
    EXPECT_EQ(back.exact, l.exact) << v;
    ASSERT_EQ(back.entries.size(), l.entries.size()) << v;
    EXPECT_EQ(back.entries[0].prefix, l.entries[0].prefix) << v;
  }
}

TEST(NcclIfList, LimitsAndHugeValues) {
  std::string many;
  for (int i = 0; i < 20; i++) many += (i ? "," : "") + std::string("e") + std::to_string(i);
  IfList l = parse_if_list(many, kNcclMaxIfs);
  EXPECT_EQ(l.entries.size(), 16u);
  EXPECT_EQ(l.dropped, 4);
  EXPECT_EQ(l.entries.back().prefix, "e15");
  EXPECT_FALSE(
      if_list_selects(parse_if_list("=" + many, kNcclMaxIfs), "e17"));  // beyond the 16th: never read
  l = parse_if_list(std::string(70, 'x'), kNcclMaxIfs);
  EXPECT_TRUE(l.overlong);
  l = parse_if_list(std::string(1 << 20, ','), kNcclMaxIfs);
  EXPECT_TRUE(l.entries.empty());
  l = parse_if_list("a:99999999999999999999", 4);
  ASSERT_EQ(l.entries.size(), 1u);
  EXPECT_GT(l.entries[0].port, 0);
}

std::string boot(const probe::NetFacts& n, std::optional<std::string> ifname = std::nullopt,
                 std::optional<std::string> family = std::nullopt,
                 std::optional<std::string> comm = std::nullopt, int version = 22809) {
  IfSelectInput in;
  in.net = &n;
  in.socket_ifname = ifname;
  in.socket_family = family;
  in.comm_id = comm;
  in.nccl_version_code = version;
  auto s = nccl_bootstrap_interface(in);
  if (!s.error.empty()) return "error";
  return s.found() ? s.matched[0].name + "/" + s.matched[0].addr : "none";
}

TEST(NcclIfSelect, AutoOrder) {
  auto n = net({lo(), iface("docker0", {"198.18.9.1/24"}, {}, true, "bridge"),
                iface("eth0", {"198.18.0.1/24"}), iface("ib0", {"198.18.1.1/24"}, {}, true, "ipoib")});
  EXPECT_EQ(boot(n), "ib0/198.18.1.1");  // "ib" first, wherever it is
  n.interfaces.pop_back();
  EXPECT_EQ(boot(n), "eth0/198.18.0.1");  // then anything but docker/lo
  n.interfaces[2].running = false;
  EXPECT_EQ(boot(n), "docker0/198.18.9.1");  // then docker
  n.interfaces[1].running = false;
  EXPECT_EQ(boot(n), "lo/127.0.0.1");  // then lo
  n.interfaces[0].running = false;
  EXPECT_EQ(boot(n), "none");
}

TEST(NcclIfSelect, Ipv6OrderLoopbackAndFamily) {
  // getifaddrs lists every IPv4 address before any IPv6 one; NCCL skips ::1.
  auto n =
      net({iface("lo", {}, {"::1/128"}, true, "loopback"), iface("eth0", {}, {"fd00::1/64", "fe80::1/64"}),
           iface("eth1", {"198.18.0.2/24"}, {"fd00::2/64"})});
  EXPECT_EQ(boot(n), "eth1/198.18.0.2");
  EXPECT_EQ(boot(n, std::nullopt, "AF_INET6"), "eth0/fd00::1");
  EXPECT_EQ(boot(n, std::nullopt, "AF_INET"), "eth1/198.18.0.2");
  EXPECT_EQ(boot(n, std::nullopt, "bogus"), "eth1/198.18.0.2");
  auto only_lo6 = net({iface("lo", {}, {"::1/128"}, true, "loopback")});
  EXPECT_EQ(boot(only_lo6), "none");
  // The scan order is the facts' `order`, not the vector position.
  auto r = net({iface("eth9", {"198.18.0.9/24"}), iface("eth0", {"198.18.0.1/24"})});
  r.interfaces[0].order = 5;
  EXPECT_EQ(boot(r), "eth0/198.18.0.1");
}

TEST(NcclIfSelect, UserValues) {
  auto n =
      net({lo(), iface("docker0", {"198.18.9.1/24"}, {}, true, "bridge"), iface("eth0", {"198.18.0.1/24"}),
           iface("eth1", {"198.18.1.1/24", "198.18.1.2/24"}), iface("enp1s0", {"198.18.2.1/24"})});
  EXPECT_EQ(boot(n, "eth"), "eth0/198.18.0.1");
  EXPECT_EQ(boot(n, "=eth1"), "eth1/198.18.1.1");  // first address of the interface (dedupe by name)
  EXPECT_EQ(boot(n, "^docker,lo"), "eth0/198.18.0.1");
  EXPECT_EQ(boot(n, "^=eth0"), "lo/127.0.0.1");  // lo is not excluded by ^=eth0 and comes first
  EXPECT_EQ(boot(n, "198.18.0.1"), "none");
  EXPECT_EQ(boot(n, "nomatch"), "none");
  EXPECT_EQ(boot(n, "="), "eth0/198.18.0.1");  // 1 character: ignored, automatic choice
  EXPECT_EQ(boot(n, ""), "eth0/198.18.0.1");
  EXPECT_EQ(boot(n, "^="), "none");          // 2 characters: used, and matches nothing
  EXPECT_EQ(boot(n, ",,"), "lo/127.0.0.1");  // empty list matches everything
  EXPECT_EQ(boot(n, "enp"), "enp1s0/198.18.2.1");
  IfSelectInput in;
  in.net = &n;
  in.socket_ifname = "eth";
  auto all = nccl_select_interfaces(in);
  ASSERT_EQ(all.matched.size(), 2u);
  EXPECT_EQ(all.matched[1].name, "eth1");
}

TEST(NcclIfSelect, VirbrDependsOnVersion) {
  auto n = net({iface("virbr0", {"198.18.7.1/24"}, {}, true, "bridge"), iface("eth0", {"198.18.0.1/24"})});
  EXPECT_EQ(boot(n, std::nullopt, std::nullopt, std::nullopt, 22809), "eth0/198.18.0.1");
  EXPECT_EQ(boot(n, std::nullopt, std::nullopt, std::nullopt, 22703), "virbr0/198.18.7.1");
}

TEST(NcclIfSelect, CommIdSubnet) {
  auto n = net({lo(), iface("eth0", {"198.18.0.1/24"}), iface("eth1", {"198.19.0.1/16"}, {}, false)});
  // Bootstrap with NCCL_COMM_ID: subnet match only, any link state, NCCL_SOCKET_IFNAME not consulted.
  EXPECT_EQ(boot(n, "eth0", std::nullopt, "198.19.5.5:1234"), "eth1/198.19.0.1");
  EXPECT_EQ(boot(n, std::nullopt, std::nullopt, "198.20.0.1:1234"), "none");
  EXPECT_EQ(boot(n, std::nullopt, std::nullopt, "headnode:1234"), "none");  // resolved by NCCL: unpredictable
  EXPECT_EQ(boot(n, std::nullopt, std::nullopt, ":1234"), "error");
  EXPECT_EQ(boot(n, std::nullopt, std::nullopt, ""), "error");
  EXPECT_EQ(boot(n, std::nullopt, std::nullopt, "[fd00::1]:1234"), "none");
}

// NCCL_SOCKET_IFNAME as a plain string ("" = unset) through the full model: the interfaces NCCL's socket
// transport uses, in its order. (The cluster layer builds its input from each node's facts instead:
// rules::nccl_if_select_input.)
std::vector<IfCandidate> nccl_socket_interfaces(const probe::NetFacts& net,
                                                const std::string& socket_ifname) {
  IfSelectInput in;
  in.net = &net;
  if (!socket_ifname.empty()) in.socket_ifname = socket_ifname;
  return nccl_select_interfaces(in).matched;
}

TEST(NcclIfSelect, SettingStringFormForTheClusterLayer) {
  // Grammar through the string helper the cluster layer uses.
  EXPECT_TRUE(nccl_if_list_selects("eth", "eth0"));
  EXPECT_FALSE(nccl_if_list_selects("=eth", "eth0"));
  EXPECT_TRUE(nccl_if_list_selects("=eth0,ib0", "eth0"));
  EXPECT_FALSE(nccl_if_list_selects("^docker,lo", "docker0"));
  EXPECT_TRUE(nccl_if_list_selects("^docker,lo", "ens1"));
  EXPECT_TRUE(nccl_if_list_selects("eth0:1234", "eth0"));
  // Order and the ignored one-letter value, with "" meaning unset.
  auto n = net({iface("docker0", {"198.19.0.1/24"}, {}, true, "bridge"), iface("eth0", {"198.18.0.1/24"}),
                iface("ib0", {"198.18.2.1/24"}, {}, true, "ipoib")});
  EXPECT_EQ(nccl_socket_interfaces(n, "").front().name, "ib0");
  EXPECT_EQ(nccl_socket_interfaces(n, "e").front().name, "ib0");  // one-letter values are ignored by NCCL
  EXPECT_EQ(nccl_socket_interfaces(n, "^ib").front().name, "docker0");
  EXPECT_EQ(nccl_socket_interfaces(n, "^ib").front().addr, "198.19.0.1");
  n.interfaces.pop_back();
  EXPECT_EQ(nccl_socket_interfaces(n, "").front().name, "eth0");
  n.interfaces[1].running = false;
  EXPECT_EQ(nccl_socket_interfaces(n, "").front().name, "docker0");
  // Same answer as the full model, candidates pointing into the facts given.
  IfSelectInput in;
  in.net = &n;
  auto full = nccl_select_interfaces(in);
  auto str = nccl_socket_interfaces(n, "");
  ASSERT_EQ(full.matched.size(), str.size());
  EXPECT_EQ(str.front().iface, &n.interfaces[0]);
}

}  // namespace
}  // namespace dd::nccl
