// Tests for reading facts out of NCCL INFO messages, across NCCL versions (2.1x wording and 2.2x wording).
#include "logs/nccl_facts.h"

#include <gtest/gtest.h>

namespace dd::logs {
namespace {

ProcessFacts absorb(std::initializer_list<const char*> msgs) {
  ProcessFacts p;
  Where at{"f.log", 0};
  for (const char* m : msgs) {
    ++at.line;
    absorb_nccl_info(p, m, at);
  }
  return p;
}

TEST(LogsNcclFacts, OlderVersionsAndPlugins) {
  auto p = absorb({"Bootstrap : Using ib0:192.168.10.4<0>",
                   "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
                   "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ib0:192.168.10.4<0>",
                   "Using network IB", "NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'",
                   "Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA",
                   "Channel 01/0 : 0[0] -> 1[1] via P2P/IPC/read",
                   "Channel 02 : 0[0] -> 1[1] via SHM/direct/direct",
                   "Channel 03/0 : 0[0] -> 1[1] via P2P/direct pointer",
                   "comm 0x7f00 rank 0 nranks 16 cudaDev 0 busId 18000 commId 0xabc - Init COMPLETE",
                   "NCCL version 2.18.1+cuda12.1"});
  EXPECT_EQ(p.bootstrap_if, "ib0");
  EXPECT_EQ(p.bootstrap_ip, "192.168.10.4");
  EXPECT_EQ(p.net_plugin, "internal");
  EXPECT_EQ(p.network, "IB");
  ASSERT_EQ(p.ib_devices.size(), 2u);
  EXPECT_EQ(p.ib_devices[1], "mlx5_1:1/RoCE");
  EXPECT_EQ(p.oob_if, "ib0");
  EXPECT_EQ(p.gdr, 1);
  EXPECT_EQ(p.channel_transports.at("NET/IB"), 1u);
  EXPECT_EQ(p.channel_transports.at("P2P/IPC"), 1u);
  EXPECT_EQ(p.channel_transports.at("SHM/direct"), 1u);
  EXPECT_EQ(p.channel_transports.count("P2P/direct"), 1u);
  EXPECT_EQ(p.init_complete, 1u);
  EXPECT_EQ(p.first_init_complete.line, 10u);
  EXPECT_EQ(p.rank, 0);
  EXPECT_EQ(p.nranks, 16);
  EXPECT_EQ(p.nccl_version, "2.18.1+cuda12.1");
}

TEST(LogsNcclFacts, FastSocketPluginAndCollectives) {
  auto p = absorb({"NET/Plugin: Loaded net plugin FastSocket (v4)",
                   "NET/FastSocket : Using [0]ibs108:10.0.19.12<0> [1]ibs109:10.0.19.13<0>",
                   "Using network FastSocket",
                   "AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x1 count 1 datatype 7 op 0 root 0 comm 0x2 "
                   "[nranks=2] stream 0x3",
                   "AllReduce: opCount 1 sendbuff 0x1 recvbuff 0x1 count 1 datatype 7 op 0 root 0 comm 0x2 "
                   "[nranks=2] stream 0x3",
                   "Broadcast: opCount 2 sendbuff 0x1 recvbuff 0x1 count 1 datatype 7 op 0 root 0 comm 0x2 "
                   "[nranks=2] stream 0x3",
                   "Channel 00/24 : 0 1", "init.cc:1563 -> 5", "cudaDriverVersion 12040"});
  EXPECT_EQ(p.net_plugin, "FastSocket");
  EXPECT_EQ(p.network, "FastSocket");
  ASSERT_EQ(p.net_devices.size(), 2u);
  EXPECT_EQ(p.net_devices[0], "ibs108:10.0.19.12");
  EXPECT_EQ(p.coll_counts.at("AllReduce"), 2u);
  EXPECT_EQ(p.coll_counts.at("Broadcast"), 1u);
  EXPECT_TRUE(p.channel_transports.empty());
  ASSERT_EQ(p.error_trace.size(), 1u);
  EXPECT_EQ(p.cuda_driver, 12040);
  EXPECT_EQ(coll_op_name("Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM"), "");
  EXPECT_EQ(coll_op_name("ReduceScatter: opCount 5 sendbuff"), "ReduceScatter");
}

// NCCL's "X set by environment to Y" lines (param.cc prints integers as "%lld.", tuning.cc and paths.cc the
// value as given); the same variable printed twice keeps one value, other NCCL_ lines are no setting.
TEST(LogsNcclFacts, EnvironmentSettings) {
  auto p =
      absorb({"NCCL_PROTO set by environment to LL", "NCCL_P2P_DISABLE set by environment to 1.",
              "NCCL_P2P_DISABLE set by environment to 1", "NCCL_SOCKET_IFNAME set by environment to eth0.",
              "NCCL_NVLS_ENABLE set by environment to 0.", "NCCL_version is not a setting",
              "NCCL version 2.28.9+cuda13.0"});
  EXPECT_EQ(p.env_settings.size(), 4u);
  EXPECT_EQ(p.env_settings.at("NCCL_PROTO"), "LL");
  EXPECT_EQ(p.env_settings.at("NCCL_P2P_DISABLE"), "1");
  EXPECT_EQ(p.env_settings.at("NCCL_SOCKET_IFNAME"), "eth0.");  // not an integer: kept as printed
  EXPECT_EQ(p.env_settings.at("NCCL_NVLS_ENABLE"), "0");
  EXPECT_EQ(p.nccl_version, "2.28.9+cuda13.0");
}

}  // namespace
}  // namespace dd::logs
