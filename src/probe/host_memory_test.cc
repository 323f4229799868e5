// The host memory parsers: /proc/meminfo, /proc/self/cgroup (v1 and v2), oom_kill counters, the cgroup's
// room.
#include "probe/host_memory.h"

#include <gtest/gtest.h>

namespace dd::probe {
namespace {

TEST(HostMemory, Parsers) {
  EXPECT_EQ(meminfo_bytes("MemTotal:       24684084 kB\nMemAvailable:   23268932 kB\n", "MemAvailable"),
            23268932ll * 1024);
  EXPECT_EQ(meminfo_bytes("MemTotal: 1 kB\n", "MemAvailable"), -1);
  EXPECT_EQ(memory_cgroup_dir("9:name=systemd:/\n4:memory:/process_api/abc\n0::/\n"), "/process_api/abc");
  EXPECT_EQ(memory_cgroup_dir("0::/user.slice/x.scope\n"), "/user.slice/x.scope");
  EXPECT_EQ(memory_cgroup_dir("5:cpu,memory:/job\n"), "/job");
  EXPECT_EQ(memory_cgroup_dir(""), "");
  EXPECT_EQ(oom_kill_count("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"), 3);  // v1 memory.oom_control
  EXPECT_EQ(oom_kill_count("low 0\nhigh 0\nmax 2\noom 1\noom_kill 1\noom_group_kill 0\n"), 1);  // v2
  EXPECT_EQ(oom_kill_count("under_oom 0\n"), -1);
}

TEST(HostMemory, CgroupRoomBoundsMemAvailable) {
  HostMemory m;
  m.meminfo_available = 20ll << 30;
  EXPECT_EQ(m.available(), 20ll << 30);
  EXPECT_EQ(m.source(), "MemAvailable");
  m.cgroup_limit = 8ll << 30;
  m.cgroup_usage = 2ll << 30;
  EXPECT_EQ(m.available(), 6ll << 30);
  EXPECT_EQ(m.source(), "the memory cgroup's limit");
}

}  // namespace
}  // namespace dd::probe
