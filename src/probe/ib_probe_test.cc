// InfiniBand/RoCE probe on the recorded tree: RoCE v1/v2 GIDs with netdevs, IB port, unreadable files.
#include "probe/ib_probe.h"

#include <gtest/gtest.h>

namespace dd::probe {
namespace {

const std::string kIbRoot = std::string(DD_FIXTURE_DIR) + "/sysfs/node1";

TEST(IbProbe, DevicesPortsGids) {
  auto fs = make_real_fs(kIbRoot);
  std::vector<std::string> errors;
  IbFacts f = probe_ib(*fs, &errors);
  ASSERT_TRUE(f.sysfs_present);
  ASSERT_EQ(f.devices.size(), 3u);
  // Sorted by name as listed: mlx5_1, mlx5_2, mlx5_bond_0.
  EXPECT_EQ(f.devices[0].name, "mlx5_1");
  const IbDevice& roce = f.devices[2];
  EXPECT_EQ(roce.name, "mlx5_bond_0");
  EXPECT_EQ(roce.node_type, "CA");
  EXPECT_EQ(roce.fw_ver, "28.39.1002");
  ASSERT_EQ(roce.ports.size(), 1u);
  const IbPort& p = roce.ports[0];
  EXPECT_EQ(p.state, "ACTIVE");
  EXPECT_EQ(p.phys_state, "LinkUp");
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.rate, "200 Gb/sec (4X HDR)");
  ASSERT_EQ(p.gids.size(), 4u);  // zero GID 4 and unreadable GID 5 are skipped
  EXPECT_EQ(p.gids[1].type, "RoCE v2");
  EXPECT_EQ(p.gids[3].index, 3);
  EXPECT_EQ(p.gids[3].type, "RoCE v2");
  EXPECT_EQ(p.gids[3].netdev, "bond0.100");
  EXPECT_EQ(p.gids[3].gid, "0000:0000:0000:0000:0000:ffff:c612:010a");
  EXPECT_EQ(roce.netdevs, (std::vector<std::string>{"bond0", "bond0.100"}));

  const IbDevice& ib = f.devices[0];
  EXPECT_EQ(ib.ports[0].link_layer, "InfiniBand");
  ASSERT_EQ(ib.ports[0].gids.size(), 1u);
  EXPECT_EQ(ib.ports[0].gids[0].type, "");
  EXPECT_EQ(ib.netdevs, (std::vector<std::string>{"ib0"}));

  const IbDevice& down = f.devices[1];
  EXPECT_EQ(down.fw_ver, "");  // unreadable
  EXPECT_EQ(down.ports[0].state, "DOWN");
  EXPECT_EQ(down.ports[0].phys_state, "Disabled");
  EXPECT_TRUE(down.ports[0].gids.empty());
  bool fw_error = false;
  for (const auto& e : errors) fw_error = fw_error || e.find("mlx5_2/fw_ver") != std::string::npos;
  EXPECT_TRUE(fw_error);
}

TEST(IbProbe, NoInfinibandDirectory) {
  auto fs = make_real_fs(kIbRoot + "/does-not-exist");
  IbFacts f = probe_ib(*fs, nullptr);
  EXPECT_FALSE(f.sysfs_present);
  EXPECT_TRUE(f.devices.empty());
}

TEST(IbProbe, ZeroGid) {
  EXPECT_TRUE(gid_is_zero("0000:0000:0000:0000:0000:0000:0000:0000"));
  EXPECT_FALSE(gid_is_zero("fe80:0000:0000:0000:0000:0000:0000:0001"));
}

}  // namespace
}  // namespace dd::probe
