// Tests of the NCCL debug-log summary of a run (read through logs/nccl_facts) on lines in the shapes NCCL 2.2x
// prints.
#include "comm/run/nccl_log.h"

#include <gtest/gtest.h>

namespace dd::comm {

TEST(NcclLog, ExtractsTransportsNetworkAndWarnings) {
  const char* log =
      "host:1:1 [0] NCCL INFO Bootstrap: Using eth0:198.18.0.2<0>\n"
      "host:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n"
      "host:1:9 [0] NCCL INFO NET/Socket : Using [0]eth0:198.18.0.2<0> [1]eth1:198.19.0.2<0>\n"
      "host:1:9 [0] NCCL INFO NET/IB : Using [RO]; OOB eth0:198.18.0.2<0>\n"
      "host:1:9 [0] NCCL INFO Using network Socket\n"
      "host:1:9 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "host:1:9 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "host:1:9 [0] NCCL INFO Channel 00/0 : 1[1] -> 0[0] [receive] via NET/Socket/0\n"
      "host:1:9 [0] NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000\n"
      "host:1:9 [0] NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000\n";
  NcclLogSummary s = parse_nccl_log(log);
  EXPECT_EQ(s.version, "2.28.9+cuda13.0");
  EXPECT_EQ(s.bootstrap, "eth0:198.18.0.2");  // logs/nccl_facts reads the interface and address
  EXPECT_EQ(s.network, "Socket");
  ASSERT_EQ(s.nics.size(), 2u);
  EXPECT_EQ(s.nics[1], "eth1:198.19.0.2");
  EXPECT_EQ(s.transports["P2P/CUMEM/read"], 2);
  EXPECT_EQ(s.transports["NET/Socket/0"], 1);
  ASSERT_EQ(s.warnings.size(), 1u);  // duplicates folded
  EXPECT_NE(s.warnings[0].find("Duplicate GPU"), std::string::npos);
  EXPECT_EQ(transport_class("NET/Socket/0"), "NET");
}

TEST(NcclLog, EmptyAndUnrelatedText) {
  NcclLogSummary s = parse_nccl_log("hello\nworld via nothing\n");
  EXPECT_TRUE(s.transports.empty());
  EXPECT_TRUE(s.warnings.empty());
  EXPECT_EQ(s.lines, 2);
}

}  // namespace dd::comm
