// sys.shm.* from predict_nccl_shm (shm_need.h, docs/shm.md): the severity follows what the job's NCCL will
// put in /dev/shm, not the size alone.
#include <gtest/gtest.h>

#include "rules/node_rules.h"
#include "rules/test_facts.h"

namespace dd::rules {
namespace {

using namespace testing;
using report::Severity;

// Two NVLink GPUs (P2P between them), a CUDA 12.8 driver, PyTorch's NCCL 2.28.9, a 64 GiB /dev/shm.
probe::NodeFacts healthy_shm_node() { return healthy_two_gpu_node(); }

// /dev/shm against what NCCL 2.28.9 will put there (docs/shm.md): nothing with NVLink P2P and cuMem, so a
// container's 64 MiB (or 1 MiB) is a warning for the data loaders, not a failure.
TEST(ShmNeed, SeverityByWhatNcclNeeds) {
  auto f = healthy_shm_node();
  f.system.shm_total_bytes = f.system.shm_free_bytes = 64LL << 20;
  auto v = run(sys_limits_rule(), f);
  auto* s = find(v, "sys.shm.small");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->severity, Severity::warn);
  EXPECT_NE(s->title.find("64 MiB"), std::string::npos);
  EXPECT_NE(s->title.find("data-loader workers"), std::string::npos) << s->title;
  // P2P off: the SHM transport lives in cuMem host memory (2.28.9, a 12.8 driver): still no file, but a
  // possible fallback is named and 1 MiB is a warning.
  f.nccl.settings["NCCL_P2P_DISABLE"] = {"1", "env"};
  f.system.shm_total_bytes = f.system.shm_free_bytes = 1LL << 20;
  s = find(v = run(sys_limits_rule(), f), "sys.shm.small");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->severity, Severity::warn);
  EXPECT_NE(s->title.find("falls back to files"), std::string::npos) << s->title;
  // ... and with cuMem host memory off, the files are certain: 2 ranks x 4 connections x 9.2 MiB > 64 MiB.
  f.nccl.settings["NCCL_CUMEM_HOST_ENABLE"] = {"0", "env"};
  f.system.shm_total_bytes = f.system.shm_free_bytes = 64LL << 20;
  EXPECT_EQ(find(run(sys_limits_rule(), f), "sys.shm.small")->severity, Severity::fail);
  // NCCL_CUMEM_ENABLE=0: the proxy pool at init, 32.6 MiB per rank: 2 ranks fit in 256 MiB, 8 do not.
  f = healthy_shm_node();
  f.nccl.settings["NCCL_CUMEM_ENABLE"] = {"0", "env"};
  f.system.shm_total_bytes = f.system.shm_free_bytes = 256LL << 20;
  s = find(v = run(sys_limits_rule(), f), "sys.shm.small");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->severity, Severity::warn);
  CheckOptions eight;
  eight.nproc_per_node = 8;
  s = find(v = run(sys_limits_rule(), f, eight), "sys.shm.small");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->severity, Severity::fail);
  EXPECT_NE(s->title.find("NCCL 2.28.9 will need about 261"), std::string::npos) << s->title;
  EXPECT_NE(s->title.find("256 MiB free"), std::string::npos) << s->title;
  // The check's own collectives passed: the prediction is only a warning then.
  eight.collectives_passed = true;
  EXPECT_EQ(find(run(sys_limits_rule(), f, eight), "sys.shm.small")->severity, Severity::warn);
  // A multi-node job: the pool is there for every rank whatever cuMem does.
  f = healthy_shm_node();
  CheckOptions nodes;
  nodes.nnodes = 2;
  f.system.shm_total_bytes = f.system.shm_free_bytes = 64LL << 20;
  EXPECT_EQ(find(run(sys_limits_rule(), f, nodes), "sys.shm.small")->severity, Severity::fail);
}

}  // namespace
}  // namespace dd::rules
