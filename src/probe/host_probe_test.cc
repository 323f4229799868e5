// Host probe: container detection on recorded trees, and the real host's basics.
#include "probe/host_probe.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace dd::probe {
namespace {

const std::string kHostFix = std::string(DD_FIXTURE_DIR) + "/sysfs";

TEST(HostProbe, ContainerKinds) {
  EXPECT_EQ(detect_container(*make_real_fs(kHostFix + "/node1"), false), "docker");  // /proc/1/cgroup says docker
  EXPECT_EQ(detect_container(*make_real_fs(kHostFix + "/k8s"), false), "kubernetes");
  EXPECT_EQ(detect_container(*make_real_fs(kHostFix + "/node1"), true), "kubernetes");  // KUBERNETES_SERVICE_HOST
  EXPECT_EQ(detect_container(*make_real_fs(kHostFix + "/nowhere"), false), "none");
}

TEST(HostProbe, RealHostWithoutResolution) {
  HostFacts h = probe_host(*make_real_fs(), read_environment(), false);
  EXPECT_FALSE(h.hostname.empty());
  EXPECT_FALSE(h.kernel.empty());
  EXPECT_TRUE(h.resolved_addrs.empty());
  EXPECT_EQ(h.fqdn, h.hostname);
  EXPECT_GT(h.pid, 0);
  // Same running kernel and network stack as this test process: filled, in the kernel's formats.
  EXPECT_EQ(h.boot_id.size(), 36u) << h.boot_id;
  EXPECT_EQ(h.netns.rfind("net:[", 0), 0u) << h.netns;
}

TEST(HostProbe, KernelIdentityFromRecordedTree) {
  HostFacts h;
  read_kernel_identity(*make_real_fs(kHostFix + "/nowhere"), h);  // neither file: left empty, no crash
  EXPECT_TRUE(h.boot_id.empty());
  EXPECT_TRUE(h.netns.empty());

  const char* tmp = std::getenv("TMPDIR");
  std::string root = std::string(tmp && *tmp ? tmp : "/tmp") + "/dd_host_probe_XXXXXX";
  ASSERT_NE(mkdtemp(root.data()), nullptr);
  std::filesystem::create_directories(root + "/proc/sys/kernel/random");
  std::filesystem::create_directories(root + "/proc/self/ns");
  std::ofstream(root + "/proc/sys/kernel/random/boot_id") << "0b3c5e4a-1111-2222-3333-444455556666\n";
  std::filesystem::create_symlink("net:[4026532001]", root + "/proc/self/ns/net");
  read_kernel_identity(*make_real_fs(root), h);
  std::filesystem::remove_all(root);
  EXPECT_EQ(h.boot_id, "0b3c5e4a-1111-2222-3333-444455556666");
  EXPECT_EQ(h.netns, "net:[4026532001]");
}

}  // namespace
}  // namespace dd::probe
