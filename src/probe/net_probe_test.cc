// Network probe on the recorded tree fixtures/sysfs/node1 with a hand-made getifaddrs list, plus parsers.
#include "probe/net_probe.h"

#include <gtest/gtest.h>

namespace dd::probe {
namespace {

const std::string kNetRoot = std::string(DD_FIXTURE_DIR) + "/sysfs/node1";
constexpr unsigned kUp = 0x1, kLoop = 0x8, kRunning = 0x40;

const NetInterface* find(const NetFacts& f, const std::string& name) {
  for (const auto& i : f.interfaces)
    if (i.name == name) return &i;
  return nullptr;
}

std::string no_driver(const std::string& n) { return n.rfind("veth", 0) == 0 ? "veth" : ""; }

NetFacts build() {
  auto fs = make_real_fs(kNetRoot);
  // getifaddrs lists AF_PACKET entries first, then IPv4, then IPv6.
  std::vector<IfAddrEntry> e = {
      {"lo", 17, kUp | kLoop | kRunning, "", -1},
      {"ens1f0", 17, kUp | kRunning, "", -1},
      {"bond0", 17, kUp | kRunning, "", -1},
      {"docker0", 17, kUp, "", -1},
      {"vethab12cd", 17, kUp | kRunning, "", -1},
      {"ib0", 17, kUp | kRunning, "", -1},
      {"eth9", 17, 0, "", -1},
      {"lo", 2, kUp | kLoop | kRunning, "127.0.0.1", 8},
      {"docker0", 2, kUp, "172.17.0.1", 16},
      {"bond0", 2, kUp | kRunning, "198.18.1.10", 16},
      {"ib0", 2, kUp | kRunning, "198.19.0.10", 24},
      {"bond0", 2, kUp | kRunning, "198.18.2.10", 24},
      {"lo", 10, kUp | kLoop | kRunning, "::1", 128},
      {"bond0.100", 10, kUp | kRunning, "fd00::10", 64},
      {"bond0", 10, kUp | kRunning, "fe80::1", 64},
  };
  std::vector<std::string> errors;
  return build_net_facts(e, *fs, no_driver, &errors);
}

TEST(NetProbe, OrderFollowsFirstAddressThenAddressless) {
  NetFacts f = build();
  std::vector<std::string> names;
  for (const auto& i : f.interfaces) names.push_back(i.name);
  // With addresses, in order of their first address; then the rest in getifaddrs/sysfs order.
  std::vector<std::string> want_prefix = {"lo", "docker0", "bond0", "ib0", "bond0.100"};
  ASSERT_GE(names.size(), want_prefix.size());
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 5), want_prefix);
  EXPECT_EQ(find(f, "bond0")->order, 2);
  EXPECT_EQ(find(f, "bond0.100")->order, 6);
  EXPECT_EQ(find(f, "ens1f0")->order, -1);
  // sysfs-only interfaces (not in getifaddrs) are listed too.
  EXPECT_NE(find(f, "tun0"), nullptr);
  EXPECT_NE(find(f, "br-0123456789ab"), nullptr);
}

TEST(NetProbe, KindsFromSysfs) {
  NetFacts f = build();
  EXPECT_EQ(find(f, "lo")->kind, "loopback");
  EXPECT_EQ(find(f, "ens1f0")->kind, "ethernet");
  EXPECT_EQ(find(f, "bond0")->kind, "bond");
  EXPECT_EQ(find(f, "bond0.100")->kind, "vlan");
  EXPECT_EQ(find(f, "docker0")->kind, "docker");
  EXPECT_EQ(find(f, "br-0123456789ab")->kind, "docker");
  EXPECT_EQ(find(f, "br0")->kind, "bridge");
  EXPECT_EQ(find(f, "vethab12cd")->kind, "veth");
  EXPECT_EQ(find(f, "ib0")->kind, "ipoib");
  EXPECT_EQ(find(f, "tun0")->kind, "virtual");
}

TEST(NetProbe, AttributesAndUnreadableFiles) {
  NetFacts f = build();
  const NetInterface* b = find(f, "bond0");
  EXPECT_EQ(b->ipv4, (std::vector<std::string>{"198.18.1.10/16", "198.18.2.10/24"}));
  EXPECT_EQ(b->ipv6, (std::vector<std::string>{"fe80::1/64"}));
  EXPECT_EQ(b->mtu, 9000);
  EXPECT_EQ(b->speed_mbps, 100000);
  EXPECT_EQ(b->index, 3);
  EXPECT_TRUE(b->up && b->running);
  EXPECT_EQ(find(f, "ens1f0")->master, "bond0");
  EXPECT_EQ(find(f, "vethab12cd")->master, "docker0");
  const NetInterface* d = find(f, "docker0");
  EXPECT_TRUE(d->up);
  EXPECT_FALSE(d->running);
  EXPECT_EQ(find(f, "lo")->speed_mbps, -1);  // unreadable speed
  const NetInterface* e9 = find(f, "eth9");
  EXPECT_EQ(e9->mtu, 0);  // unreadable mtu: default, no crash
  EXPECT_FALSE(e9->up);
  EXPECT_EQ(e9->kind, "ethernet");
  EXPECT_EQ(f.default_route_ifname, "bond0");  // lowest metric of two defaults
}

TEST(NetParse, ProcNetRoute) {
  EXPECT_EQ(parse_proc_net_route(""), "");
  EXPECT_EQ(parse_proc_net_route("Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\n"
                                 "eth0\t00000000\t0100A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"),
            "eth0");
  // A default route that is not up (flags 0) is ignored; garbage lines too.
  EXPECT_EQ(parse_proc_net_route("eth0\t00000000\t0100A8C0\t0000\t0\t0\t0\t00000000\t0\t0\t0\ngarbage\n"),
            "");
  EXPECT_EQ(parse_proc_net_route("eth0\t0000A8C0\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n"), "");
}

TEST(NetParse, Ipv6Route) {
  std::string z(32, '0');
  EXPECT_EQ(
      parse_ipv6_route(z + " 00 " + z + " 00 fd000000000000000000000000000001 00000400 1 0 00000003 ens3\n"),
      "ens3");
  // The kernel's unreachable ::/0 on lo is not a default route.
  EXPECT_EQ(parse_ipv6_route(z + " 00 " + z + " 00 " + z + " ffffffff 1 0 00200200 lo\n"), "");
  EXPECT_EQ(parse_ipv6_route("short line\n"), "");
}

TEST(NetParse, ClassifyEdgeCases) {
  IfTraits t;
  EXPECT_EQ(classify_interface("x", t), "virtual");
  t.has_device = true;
  EXPECT_EQ(classify_interface("enp1s0", t), "ethernet");
  t.type = 32;
  EXPECT_EQ(classify_interface("ib0", t), "ipoib");
  IfTraits br;
  br.bridge = true;
  EXPECT_EQ(classify_interface("br-0123456789ab", br), "docker");
  EXPECT_EQ(classify_interface("br-ex", br), "bridge");  // OpenStack bridge, not Docker
  IfTraits v;
  v.driver = "veth";
  EXPECT_EQ(classify_interface("docker0", v), "docker");  // the name wins: NCCL users know it as docker0
  EXPECT_EQ(classify_interface("eth0", v), "veth");       // container side of a veth pair
}

}  // namespace
}  // namespace dd::probe
