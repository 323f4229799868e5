// Tests of the line timestamp parser: NCCL, glog (PyTorch, torchrun), Python logging, Paddle, none.
#include "logs/log_time.h"

#include <gtest/gtest.h>

namespace dd::logs {
namespace {

TEST(LogsLogTime, FormatsOrderTheSameMoment) {
  int64_t nccl = log_time_key("[2026-11-23 15:02:00] vm:570:591 [0] misc/socket.cc:72 NCCL WARN x");
  int64_t glog = log_time_key("[rank0]:[E1123 15:02:00.551802526 ProcessGroupNCCL.cpp:612] [Rank 0] x");
  int64_t torchrun =
      log_time_key("W1123 15:02:01.204000 2514 torch/distributed/elastic/api.py:1012] Sending");
  int64_t pylog = log_time_key("2026-11-23 15:02:00,123-INFO: [topology.py:187:__init__] x");
  int64_t paddle = log_time_key("LAUNCH INFO 2026-11-23 15:02:02,655 Exit code -15");
  ASSERT_GE(nccl, 0);
  EXPECT_LT(nccl, pylog);
  EXPECT_LT(pylog, glog);
  EXPECT_LT(glog, torchrun);
  EXPECT_LT(torchrun, paddle);
  EXPECT_EQ(log_time_text(glog), "11-23 15:02:00.551");
  EXPECT_EQ(log_time_key("2026-11-22_01:15:54"),
            log_time_key("[2026-11-22 01:15:54] x"));  // torchrun summary
}

TEST(LogsLogTime, NotATimestamp) {
  EXPECT_EQ(log_time_key("gpu-node-1:12345:12345 [0] NCCL INFO Init COMPLETE"), -1);
  EXPECT_EQ(log_time_key("Epoch 1123 12:00:00"), -1);
  EXPECT_EQ(log_time_key("I1399 10:00:00.1 x"), -1);  // month 13
  EXPECT_EQ(log_time_key("[rank1]: ValueError: x"), -1);
  EXPECT_EQ(log_time_key(""), -1);
  EXPECT_EQ(log_time_key("[2026-11-23"), -1);
  EXPECT_EQ(log_time_text(-1), "");
}

}  // namespace
}  // namespace dd::logs
