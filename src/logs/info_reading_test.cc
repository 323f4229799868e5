// read_info_line (on the INFO reader of `logs`): NCCL's init information lines as NCCL prints them, with and
// without framework prefixes.
#include "logs/info_reading.h"

#include <gtest/gtest.h>

namespace dd::logs {
namespace {

TEST(InfoReading, SocketInterfacesInOrder) {
  auto r = read_info_line(
      "node1:2250:2250 [0] NCCL INFO NET/Socket : Using [0]eth0:198.18.0.1<0> [1]ib0:fd00::1<0>");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, "nccl.line.net_socket");
  EXPECT_EQ(r->title, "NCCL's socket transport uses eth0 (198.18.0.1), ib0 (fd00::1)");
}

TEST(InfoReading, IbHcasLinkLayerAndOob) {
  auto r = read_info_line(
      "[rank3]: NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_bond_0:1/RoCE ; OOB eth0:198.18.0.2<0>");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->id, "nccl.line.net_ib");
  EXPECT_EQ(r->title,
            "NCCL's IB transport uses mlx5_0 port 1 (IB), mlx5_bond_0 port 1 (RoCE); out-of-band over eth0 "
            "(198.18.0.2)");
}

TEST(InfoReading, BootstrapNetworkVersion) {
  EXPECT_EQ(read_info_line("h:1:1 [0] NCCL INFO Bootstrap : Using eth1:198.18.1.1<0>")->title,
            "NCCL's bootstrap uses eth1 (198.18.1.1)");
  EXPECT_EQ(read_info_line("h:1:1 [0] NCCL INFO Using network Socket")->id, "nccl.line.network");
  EXPECT_EQ(read_info_line("h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0")->title,
            "This process loaded NCCL 2.28.9+cuda13.0");
}

TEST(InfoReading, OtherLinesAreNotRead) {
  EXPECT_FALSE(read_info_line("h:1:1 [0] NCCL WARN Bootstrap : no socket interface found"));
  EXPECT_FALSE(read_info_line("NET/Socket : Using"));  // no interface listed
  EXPECT_FALSE(read_info_line(""));
}

TEST(InfoReading, EveryIdHasADoc) {
  for (const char* id : {"nccl.line.net_socket", "nccl.line.net_ib", "nccl.line.bootstrap",
                         "nccl.line.network", "nccl.line.version"}) {
    bool found = false;
    for (const auto& d : nccl::info_line_docs()) found |= d.id == id && !d.explanation.empty();
    EXPECT_TRUE(found) << id;
  }
}

}  // namespace
}  // namespace dd::logs
