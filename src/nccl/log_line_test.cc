// Tests for the NCCL line parser across NCCL versions and framework/launcher prefixes.
#include "nccl/log_line.h"

#include <gtest/gtest.h>

namespace dd::nccl {
namespace {

TEST(LogsNcclLine, PlainInfo) {
  auto l = parse_nccl_line("gpu-node-1:20417:20502 [3] NCCL INFO Using network Socket");
  EXPECT_EQ(l.level, NcclLevel::info);
  EXPECT_EQ(l.host, "gpu-node-1");
  EXPECT_EQ(l.pid, 20417);
  EXPECT_EQ(l.tid, 20502);
  EXPECT_EQ(l.dev, 3);
  EXPECT_EQ(l.msg, "Using network Socket");
  EXPECT_EQ(l.fw_rank, -1);
}

TEST(LogsNcclLine, WarnOldAndNewStyles) {
  auto a = parse_nccl_line(
      "h:1:2 [0] include/socket.h:403 NCCL WARN Connect to 10.0.0.2<1> failed : Network is unreachable");
  EXPECT_EQ(a.level, NcclLevel::warn);
  EXPECT_EQ(a.src, "include/socket.h:403");
  EXPECT_EQ(a.msg, "Connect to 10.0.0.2<1> failed : Network is unreachable");
  auto b = parse_nccl_line("h:1:2 [1] misc/socket.cc:596 (socketStartConnect) NCCL WARN connect failed");
  EXPECT_EQ(b.level, NcclLevel::warn);
  EXPECT_EQ(b.src, "misc/socket.cc:596");
  EXPECT_EQ(b.msg, "connect failed");
  EXPECT_EQ(b.dev, 1);
}

TEST(LogsNcclLine, TimestampAndFrameworkPrefixes) {
  auto a = parse_nccl_line(
      "[2026-11-21 10:14:03] node.example.com:77:78 [0] bootstrap.cc:114 NCCL WARN Bootstrap : no socket "
      "interface found");
  EXPECT_EQ(a.level, NcclLevel::warn);
  EXPECT_EQ(a.host, "node.example.com");
  EXPECT_EQ(a.msg, "Bootstrap : no socket interface found");
  auto b = parse_nccl_line("[rank12]:gpu7:5:6 [4] NCCL INFO Init timings");
  EXPECT_EQ(b.level, NcclLevel::info);
  EXPECT_EQ(b.fw_rank, 12);
  EXPECT_EQ(b.host, "gpu7");
  auto c = parse_nccl_line("[default1]:[rank3]:gpu7:5:6 [1] NCCL INFO x y");
  EXPECT_EQ(c.fw_rank, 3);
  EXPECT_EQ(c.msg, "x y");
  auto d = parse_nccl_line("3: gpu7:5:6 [1] NCCL INFO from srun -l");
  EXPECT_EQ(d.fw_rank, 3);
  EXPECT_EQ(d.level, NcclLevel::info);
  // A custom NCCL_DEBUG_TIMESTAMP_FORMAT without brackets goes through the slow path.
  auto e = parse_nccl_line("2026-11-21T10:14:03.123456 gpu7:5:6 [2] NCCL INFO Using network IB");
  EXPECT_EQ(e.level, NcclLevel::info);
  EXPECT_EQ(e.dev, 2);
  EXPECT_EQ(e.msg, "Using network IB");
}

TEST(LogsNcclLine, BareVersionAndNonNccl) {
  auto v = parse_nccl_line("NCCL version 2.28.9+cuda12.9");
  EXPECT_EQ(v.level, NcclLevel::version);
  auto n = parse_nccl_line("[rank0]: iteration: 5 loss 2.31");
  EXPECT_EQ(n.level, NcclLevel::none);
  EXPECT_EQ(n.fw_rank, 0);
  EXPECT_EQ(n.msg, "iteration: 5 loss 2.31");
  // Near misses are not NCCL lines.
  for (const char* s :
       {"", "[", "[rank", "a:b:c [0] NCCL INFO x", "h:1:2 [x] NCCL INFO y", "h:1:2 [0] NCCL BOGUS z",
        ":1:2 [0]", "h:1:2 [0] NCCL WARN", "\x01\x02\xff NCCL \xfe"}) {
    auto l = parse_nccl_line(s);
    EXPECT_TRUE(l.level == NcclLevel::none || l.level == NcclLevel::warn) << s;
  }
}

}  // namespace
}  // namespace dd::nccl
