// Tests of the engine and NCCL library choice over recorded facts.
#include "rules/engine_choice.h"

#include <gtest/gtest.h>

namespace dd::rules {

namespace {
probe::NcclLib lib(std::string path, std::string source, bool loads) {
  probe::NcclLib l;
  l.path = std::move(path);
  l.source = std::move(source);
  if (loads) {
    l.version_code = 22809;
    l.version = "2.28.9";
  } else {
    l.error = "dlopen failed";
  }
  return l;
}
}  // namespace

TEST(EngineChoice, VisibleGpusFromCudaVisibleDevicesThenNvml) {
  probe::NodeFacts f;
  EXPECT_EQ(visible_gpu_count(f), 0);
  f.gpu.gpus.resize(8);
  EXPECT_EQ(visible_gpu_count(f), 8);
  f.cuda.visible_devices_set = true;
  f.cuda.visible_devices = "2,3";
  EXPECT_EQ(visible_gpu_count(f), 2);
  for (const char* none : {"", "-1", "none", "NoDevFiles"}) {
    f.cuda.visible_devices = none;
    EXPECT_EQ(visible_gpu_count(f), 0) << none;
  }
}

TEST(EngineChoice, GpuIdsForBindGpuKeepCudaVisibleDevicesEntries) {
  probe::NodeFacts f;
  EXPECT_TRUE(visible_gpu_ids(f).empty());
  f.gpu.gpus.resize(3);
  EXPECT_EQ(visible_gpu_ids(f), (std::vector<std::string>{"0", "1", "2"}));
  f.cuda.visible_devices_set = true;
  f.cuda.visible_devices = "5, GPU-1a2b";
  EXPECT_EQ(visible_gpu_ids(f), (std::vector<std::string>{"5", "GPU-1a2b"}));
  f.cuda.visible_devices = "-1";
  EXPECT_TRUE(visible_gpu_ids(f).empty());
}

TEST(EngineChoice, NcclLibFlagThenFrameworkThenLoader) {
  probe::NodeFacts f;
  f.nccl.libs = {
      lib("/usr/lib/libnccl.so.2", "loader", true),
      lib("/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2", "site-packages", true),
      lib("/mine/libnccl.so.2", "--nccl-lib", false)};
  EXPECT_EQ(choose_nccl_lib(f, "/mine/libnccl.so.2").path, "/mine/libnccl.so.2");
  EXPECT_FALSE(choose_nccl_lib(f, "/mine/libnccl.so.2").loads);
  EXPECT_EQ(choose_nccl_lib(f, "").source, "site-packages");
  f.nccl.libs[1].error = "broken";
  EXPECT_EQ(choose_nccl_lib(f, "").path, "/usr/lib/libnccl.so.2");
  f.nccl.libs[0].error = "broken";
  EXPECT_TRUE(choose_nccl_lib(f, "").path.empty());
}

TEST(EngineChoice, NcclOnlyWithGpusABuiltEngineAndALoadingLibrary) {
  probe::NodeFacts f;
  EXPECT_EQ(choose_engine(f, "", "", true).engine, EngineKind::gloo);
  EXPECT_EQ(choose_engine(f, "nccl", "", true).reason, "--engine nccl");
  f.gpu.gpus.resize(2);
  EXPECT_EQ(choose_engine(f, "", "", true).reason, "2 GPU(s) visible but no libnccl loads");
  f.nccl.libs = {lib("/usr/lib/libnccl.so.2", "loader", true)};
  EXPECT_EQ(choose_engine(f, "", "", true).engine, EngineKind::nccl);
  EXPECT_EQ(choose_engine(f, "", "", false).engine, EngineKind::gloo);
}

}  // namespace dd::rules
