// System probe parsers and the recorded /proc files.
#include "probe/system_probe.h"

#include <gtest/gtest.h>

namespace dd::probe {
namespace {

const std::string kSystemRoot = std::string(DD_FIXTURE_DIR) + "/sysfs/node1";

TEST(SystemProbe, SysvShmOrphans) {
  auto fs = make_real_fs(kSystemRoot);
  auto text = fs->read("/proc/sysvipc/shm");
  ASSERT_TRUE(text.ok());
  auto o = parse_sysvipc_shm(*text);
  ASSERT_EQ(o.size(), 2u);  // shmid 4 has nattch 2
  EXPECT_EQ(o[0].shmid, 3);
  EXPECT_EQ(o[0].bytes, 67108864);
  EXPECT_EQ(o[0].cpid, 4242);
  EXPECT_EQ(o[1].shmid, 5);
  EXPECT_EQ(o[1].uid, 1000);
  EXPECT_TRUE(parse_sysvipc_shm("").empty());
  EXPECT_TRUE(parse_sysvipc_shm("garbage line\n1 2\n").empty());
}

TEST(SystemProbe, Modules) {
  auto fs = make_real_fs(kSystemRoot);
  auto m = parse_proc_modules(*fs->read("/proc/modules"));
  EXPECT_EQ(m, (std::vector<std::string>{"nvidia_peermem", "nvidia_uvm", "nvidia_drm", "nvidia", "mlx5_ib",
                                         "ib_uverbs", "ib_core", "mlx5_core", "bonding"}));
}

TEST(SystemProbe, RealMachine) {
  auto fs = make_real_fs();
  std::vector<std::string> errors;
  SystemFacts s = probe_system(*fs, &errors);
  EXPECT_GT(s.shm_total_bytes, 0);
  EXPECT_GE(s.shm_total_bytes, s.shm_free_bytes);
  EXPECT_NE(s.nofile_soft, -2);
  EXPECT_NE(s.memlock_soft, -2);
}

TEST(SystemProbe, MissingProcFilesAreErrors) {
  auto fs = make_real_fs(kSystemRoot + "/nowhere");
  std::vector<std::string> errors;
  SystemFacts s = probe_system(*fs, &errors);
  EXPECT_FALSE(s.modules_readable);
  EXPECT_EQ(errors.size(), 2u);
}

}  // namespace
}  // namespace dd::probe
