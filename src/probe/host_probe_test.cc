// Host probe: container detection on recorded trees, and the real host's basics.
#include "probe/host_probe.h"

#include <gtest/gtest.h>

namespace dd::probe {
namespace {

const std::string kFix = std::string(DD_FIXTURE_DIR) + "/sysfs";

TEST(HostProbe, ContainerKinds) {
  EXPECT_EQ(detect_container(*make_real_fs(kFix + "/node1"), false), "docker");  // /proc/1/cgroup says docker
  EXPECT_EQ(detect_container(*make_real_fs(kFix + "/k8s"), false), "kubernetes");
  EXPECT_EQ(detect_container(*make_real_fs(kFix + "/node1"), true), "kubernetes");  // KUBERNETES_SERVICE_HOST
  EXPECT_EQ(detect_container(*make_real_fs(kFix + "/nowhere"), false), "none");
}

TEST(HostProbe, RealHostWithoutResolution) {
  HostFacts h = probe_host(*make_real_fs(), false);
  EXPECT_FALSE(h.hostname.empty());
  EXPECT_FALSE(h.kernel.empty());
  EXPECT_TRUE(h.resolved_addrs.empty());
  EXPECT_EQ(h.fqdn, h.hostname);
  EXPECT_GT(h.pid, 0);
}

}  // namespace
}  // namespace dd::probe
