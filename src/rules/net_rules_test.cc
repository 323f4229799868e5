// The network rules on hand-made facts: NCCL_SOCKET_IFNAME / automatic choice, GLOO_SOCKET_IFNAME,
// NCCL_IB_HCA.
#include <gtest/gtest.h>

#include "rules/node_rules.h"
#include "rules/test_facts.h"

namespace dd::rules {
namespace {

using namespace testing;
using report::Severity;

probe::NodeFacts host(std::vector<probe::NetInterface> ifs) {
  probe::NodeFacts f;
  f.net = net(std::move(ifs));
  return f;
}

probe::NodeFacts typical() {
  return host({lo(), iface("eth0", {"198.18.0.1/24"}, {"fd00::1/64"}, true, "ethernet", 25000),
               iface("docker0", {"198.18.9.1/24"}, {}, true, "bridge")});
}

TEST(SocketIfnameRule, AutoPicksRealInterface) {
  auto v = run(socket_ifname_rule(), typical());
  EXPECT_EQ(evidence_any(v, "nccl_bootstrap_if"), "eth0");
  EXPECT_TRUE(has(v, "net.nccl_if.selected"));
  EXPECT_EQ(worst(v), Severity::ok);
}

TEST(SocketIfnameRule, AutoDockerAndLoopbackWarn) {
  auto f = host({lo(), iface("docker0", {"198.18.9.1/24"}, {}, true, "bridge"),
                 iface("eth0", {"198.18.0.1/24"}, {}, false)});
  auto v = run(socket_ifname_rule(), f);
  EXPECT_TRUE(has(v, "net.nccl_auto_if.docker"));
  EXPECT_EQ(evidence_any(v, "nccl_bootstrap_if"), "docker0");
  f = host({lo()});
  v = run(socket_ifname_rule(), f);
  EXPECT_TRUE(has(v, "net.nccl_auto_if.loopback"));
  f = host({iface("eth0", {"198.18.0.1/24"}, {}, false)});
  v = run(socket_ifname_rule(), f);
  EXPECT_EQ(find(v, "net.nccl_if.none")->severity, Severity::fail);
  EXPECT_EQ(evidence_any(v, "nccl_bootstrap_if"), "none");
}

TEST(SocketIfnameRule, UserValueFailures) {
  auto f = typical();
  set_nccl(f, "NCCL_SOCKET_IFNAME", "198.18.0.1");
  auto v = run(socket_ifname_rule(), f);
  auto* ip = find(v, "net.socket_ifname.is_ip");
  ASSERT_NE(ip, nullptr);
  EXPECT_EQ(ip->severity, Severity::fail);
  EXPECT_NE(ip->fix.find("NCCL_SOCKET_IFNAME=eth0"),
            std::string::npos);  // the interface holding that address
  set_nccl(f, "NCCL_SOCKET_IFNAME", "ens3");
  v = run(socket_ifname_rule(), f);
  EXPECT_EQ(find(v, "net.socket_ifname.no_match")->severity, Severity::fail);
  EXPECT_EQ(evidence_any(v, "nccl_bootstrap_if"), "none");
  set_nccl(f, "NCCL_SOCKET_IFNAME", "docker,lo");
  v = run(socket_ifname_rule(), f);
  EXPECT_TRUE(has(v, "net.socket_ifname.virtual_only"));
  set_nccl(f, "NCCL_SOCKET_IFNAME", "=");
  v = run(socket_ifname_rule(), f);
  EXPECT_TRUE(has(v, "net.socket_ifname.ignored"));
  EXPECT_EQ(evidence_any(v, "nccl_bootstrap_if"), "eth0");
  set_nccl(f, "NCCL_SOCKET_IFNAME", "^=");
  v = run(socket_ifname_rule(), f);
  EXPECT_TRUE(has(v, "net.socket_ifname.no_match"));
  set_nccl(f, "NCCL_SOCKET_IFNAME", "=eth0");
  v = run(socket_ifname_rule(), f);
  EXPECT_EQ(worst(v), Severity::ok);
  set_nccl(f, "NCCL_SOCKET_IFNAME", "^docker0");  // keeps lo, which is scanned first
  v = run(socket_ifname_rule(), f);
  EXPECT_TRUE(has(v, "net.socket_ifname.local_first"));
  EXPECT_EQ(evidence_any(v, "nccl_bootstrap_if"), "lo");
  set_nccl(f, "NCCL_SOCKET_IFNAME", "^docker,lo");
  EXPECT_EQ(worst(run(socket_ifname_rule(), f)), Severity::ok);
}

TEST(SocketIfnameRule, DownInterfaceExplained) {
  auto f = host({lo(), iface("eth0", {"198.18.0.1/24"}), iface("eth1", {"198.18.1.1/24"}, {}, false)});
  set_nccl(f, "NCCL_SOCKET_IFNAME", "=eth1", "/etc/nccl.conf");
  auto v = run(socket_ifname_rule(), f);
  auto* nm = find(v, "net.socket_ifname.no_match");
  ASSERT_NE(nm, nullptr);
  bool explained = false, source = false;
  for (const auto& e : nm->evidence) {
    explained = explained || e.find("eth1 (down)") != std::string::npos;
    source = source || e.find("/etc/nccl.conf") != std::string::npos;
  }
  EXPECT_TRUE(explained);
  EXPECT_TRUE(source);
}

TEST(SocketIfnameRule, SlowOnlyWhenSocketsCarryData) {
  auto f = host({lo(), iface("eth0", {"198.18.0.1/24"}, {}, true, "ethernet", 1000),
                 iface("eth1", {"198.18.1.1/24"}, {}, true, "ethernet", 100000)});
  EXPECT_TRUE(has(run(socket_ifname_rule(), f), "net.nccl_if.slow"));
  f.ib.devices.push_back(ib_dev("mlx5_0", "InfiniBand"));  // data goes over IB: bootstrap speed irrelevant
  EXPECT_FALSE(has(run(socket_ifname_rule(), f), "net.nccl_if.slow"));
}

TEST(SocketIfnameRule, CommIdAndEmptyFacts) {
  auto f = typical();
  set_nccl(f, "NCCL_COMM_ID", "node1:29500");  // valid for NCCL (resolved), just not predictable
  auto v = run(socket_ifname_rule(), f);
  EXPECT_TRUE(has(v, "net.nccl_comm_id.hostname"));
  EXPECT_EQ(evidence_any(v, "nccl_bootstrap_if"), "unknown");
  set_nccl(f, "NCCL_COMM_ID", "[fd00::1:29500");
  EXPECT_TRUE(has(run(socket_ifname_rule(), f), "net.nccl_comm_id.invalid"));
  set_nccl(f, "NCCL_COMM_ID", "=");
  EXPECT_TRUE(has(run(socket_ifname_rule(), f), "net.nccl_comm_id.invalid"));
  set_nccl(f, "NCCL_COMM_ID", "198.20.0.1:29500");
  EXPECT_TRUE(has(run(socket_ifname_rule(), f), "net.nccl_comm_id.no_subnet"));
  probe::NodeFacts empty;
  EXPECT_TRUE(has(run(socket_ifname_rule(), empty), "net.interfaces.unknown"));
  set_nccl(f, "NCCL_SOCKET_IFNAME", std::string(1 << 16, 'e') + ",eth");
  EXPECT_NO_THROW(run(socket_ifname_rule(), f));
}

TEST(GlooIfnameRule, ExactNamesOnly) {
  auto f = typical();
  set_env(f, "GLOO_SOCKET_IFNAME", "eth0");
  EXPECT_TRUE(has(run(gloo_ifname_rule(), f), "net.gloo_ifname.ok"));
  set_env(f, "GLOO_SOCKET_IFNAME", "eth");  // a prefix works for NCCL, not for gloo
  EXPECT_EQ(find(run(gloo_ifname_rule(), f), "net.gloo_ifname.no_match")->severity, Severity::fail);
  set_env(f, "GLOO_SOCKET_IFNAME", "eth0,,eth0");
  EXPECT_TRUE(has(run(gloo_ifname_rule(), f), "net.gloo_ifname.no_match"));
  set_env(f, "GLOO_SOCKET_IFNAME", "198.18.0.1");
  EXPECT_TRUE(has(run(gloo_ifname_rule(), f), "net.gloo_ifname.is_ip"));
  set_env(f, "GLOO_SOCKET_IFNAME", "docker0");
  EXPECT_TRUE(has(run(gloo_ifname_rule(), f), "net.gloo_ifname.virtual"));
  set_env(f, "GLOO_SOCKET_IFNAME", "=");
  EXPECT_TRUE(has(run(gloo_ifname_rule(), f), "net.gloo_ifname.ignored"));
  f.net.interfaces[1].running = false;
  set_env(f, "GLOO_SOCKET_IFNAME", "eth0");
  EXPECT_TRUE(has(run(gloo_ifname_rule(), f), "net.gloo_ifname.down"));
  f.env.clear();
  EXPECT_TRUE(run(gloo_ifname_rule(), f).empty());
}

probe::NodeFacts ib_host() {
  auto f = typical();
  f.ib.sysfs_present = true;
  f.ib.devices = {ib_dev("mlx5_0", "InfiniBand"), ib_dev("mlx5_1", "InfiniBand"),
                  ib_dev("mlx5_10", "InfiniBand")};
  set_nccl_lib(f, "2.28.9");
  return f;
}

TEST(IbHcaRule, Selection) {
  auto f = ib_host();
  auto v = run(ib_hca_rule(), f);
  EXPECT_EQ(evidence_any(v, "nccl_ib_devs"), "mlx5_0:1,mlx5_1:1,mlx5_10:1");
  EXPECT_EQ(worst(v), Severity::ok);
  set_nccl(f, "NCCL_IB_HCA", "mlx5_1");
  v = run(ib_hca_rule(), f);
  EXPECT_EQ(evidence_any(v, "nccl_ib_devs"), "mlx5_1:1,mlx5_10:1");
  EXPECT_TRUE(has(v, "ib.hca.prefix_overmatch"));
  set_nccl(f, "NCCL_IB_HCA", "=mlx5_1");
  v = run(ib_hca_rule(), f);
  EXPECT_EQ(evidence_any(v, "nccl_ib_devs"), "mlx5_1:1");
  EXPECT_EQ(worst(v), Severity::ok);
  set_nccl(f, "NCCL_IB_HCA", "^mlx5_1");
  EXPECT_EQ(evidence_any(run(ib_hca_rule(), f), "nccl_ib_devs"), "mlx5_0:1");
  set_nccl(f, "NCCL_IB_HCA", "mlx5_0:2");
  v = run(ib_hca_rule(), f);
  EXPECT_TRUE(has(v, "ib.hca.no_match"));
  set_nccl(f, "NCCL_IB_HCA", "^=");
  EXPECT_TRUE(has(run(ib_hca_rule(), f), "ib.hca.no_match"));
}

TEST(IbHcaRule, DisabledDownMixBond) {
  auto f = ib_host();
  set_nccl(f, "NCCL_IB_DISABLE", "1");
  EXPECT_TRUE(has(run(ib_hca_rule(), f), "ib.disabled_but_active"));
  set_nccl(f, "NCCL_IB_DISABLE", "yes");  // read as 0 by NCCL
  auto yes = run(ib_hca_rule(), f);
  EXPECT_TRUE(has(yes, "nccl.setting_not_a_number"));
  EXPECT_FALSE(has(yes, "ib.disabled_but_active"));
  set_nccl(f, "NCCL_IB_DISABLE", "0");
  EXPECT_FALSE(has(run(ib_hca_rule(), f), "ib.disabled_but_active"));
  set_nccl(f, "NCCL_NET", "Socket");
  EXPECT_TRUE(has(run(ib_hca_rule(), f), "ib.disabled_but_active"));
  f.nccl.settings.erase("NCCL_NET");
  f.ib.devices = {ib_dev("mlx5_0", "InfiniBand", "1: DOWN")};
  EXPECT_TRUE(has(run(ib_hca_rule(), f), "ib.ports_down"));
  f.ib.devices = {ib_dev("mlx5_0", "InfiniBand"), ib_dev("mlx5_1", "Ethernet")};
  EXPECT_TRUE(has(run(ib_hca_rule(), f), "ib.link_layer_mix"));
  f.ib.devices = {ib_dev("mlx5_bond_0", "Ethernet"), ib_dev("mlx5_2", "Ethernet")};
  EXPECT_TRUE(has(run(ib_hca_rule(), f), "ib.hca.bond_mixed"));
  f.ib.devices = {ib_dev("mlx5_bond_0", "Ethernet")};
  auto bond = run(ib_hca_rule(), f);
  EXPECT_TRUE(has(bond, "ib.hca.bond"));
  EXPECT_FALSE(has(bond, "ib.hca.bond_mixed"));
  f.ib.devices = {ib_dev("mlx5_0", "InfiniBand"), ib_dev("mlx5_1", "InfiniBand", "1: DOWN")};
  set_nccl(f, "NCCL_IB_HCA", "=mlx5_0,mlx5_1");
  EXPECT_TRUE(has(run(ib_hca_rule(), f), "ib.hca.port_down"));
}

TEST(IbHcaRule, RoceGidIndexByVersion) {
  auto f = typical();
  f.ib.devices = {ib_dev("mlx5_0", "Ethernet")};
  set_nccl_lib(f, "2.18.5");
  auto v = run(ib_hca_rule(), f);
  auto* g = find(v, "ib.roce.gid_index_missing");
  ASSERT_NE(g, nullptr);
  EXPECT_NE(g->fix.find("NCCL_IB_GID_INDEX=3"), std::string::npos);  // RoCE v2 with the IPv4-mapped GID
  set_nccl(f, "NCCL_IB_GID_INDEX", "3");
  EXPECT_FALSE(has(run(ib_hca_rule(), f), "ib.roce.gid_index_missing"));
  set_nccl(f, "NCCL_IB_GID_INDEX", "7");
  EXPECT_TRUE(has(run(ib_hca_rule(), f), "ib.roce.gid_index_invalid"));
  f.nccl.settings.clear();
  f.nccl.libs.clear();
  set_nccl_lib(f, "2.21.5");
  v = run(ib_hca_rule(), f);
  EXPECT_TRUE(has(v, "ib.roce.gid_auto"));
  EXPECT_FALSE(has(v, "ib.roce.gid_index_missing"));
}

TEST(IbHcaRule, NoDevices) {
  probe::NodeFacts f;
  EXPECT_EQ(worst(run(ib_hca_rule(), f)), Severity::info);
  set_nccl(f, "NCCL_IB_HCA", "mlx5");
  EXPECT_TRUE(has(run(ib_hca_rule(), f), "ib.hca.no_match"));
}

}  // namespace
}  // namespace dd::rules
