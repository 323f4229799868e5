// The RDMA user-space rule on hand-made facts: a container without /dev/infiniband, no libibverbs, no mlx5
// provider, all in place; quiet on records made before the probe read user space.
#include <gtest/gtest.h>

#include "rules/node_rules.h"
#include "rules/test_facts.h"

namespace dd::rules {
namespace {

using namespace testing;
using report::Severity;

probe::NodeFacts rdma_node() {
  probe::NodeFacts f;
  f.host.hostname = "gpu-node-1";
  f.host.container = "docker";
  f.ib.sysfs_present = true;
  f.ib.devices = {ib_dev("mlx5_0", "InfiniBand"), ib_dev("mlx5_1", "InfiniBand")};
  f.ib.userspace_probed = true;
  f.ib.dev_infiniband = 1;
  f.ib.dev_files = {"rdma_cm", "uverbs0", "uverbs1"};
  f.ib.verbs_lib = "/usr/lib/x86_64-linux-gnu/libibverbs.so.1";
  f.ib.verbs_providers = {"mlx5"};
  return f;
}

TEST(RdmaUserspaceRule, AllInPlace) {
  auto v = run(rdma_userspace_rule(), rdma_node());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].id, "ib.userspace.ok");
}

TEST(RdmaUserspaceRule, ContainerWithoutDevInfiniband) {
  auto f = rdma_node();
  f.ib.dev_infiniband = 0;
  f.ib.dev_files.clear();
  auto v = run(rdma_userspace_rule(), f);
  auto* d = find(v, "ib.dev_missing");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, Severity::warn);  // NCCL falls back to sockets: slow, not broken
  EXPECT_NE(d->title.find("in this container"), std::string::npos) << d->title;
  EXPECT_NE(d->fix.find("--device=/dev/infiniband"), std::string::npos);
  set_nccl(f, "NCCL_IB_DISABLE", "1");  // IB off anyway: only info
  EXPECT_EQ(find(run(rdma_userspace_rule(), f), "ib.dev_missing")->severity, Severity::info);
  // NCCL_NET=IB there cannot work: the settings rule says so.
  f = rdma_node();
  f.ib.dev_infiniband = 0;
  set_nccl(f, "NCCL_NET", "IB");
  auto net = run(nccl_env_rule(), f);
  ASSERT_TRUE(has(net, "nccl.net.ib_unavailable"));
  EXPECT_NE(find(net, "nccl.net.ib_unavailable")->title.find("/dev/infiniband"), std::string::npos);
}

TEST(RdmaUserspaceRule, VerbsLibraryOrProviderMissing) {
  auto f = rdma_node();
  f.ib.verbs_lib.clear();
  f.ib.verbs_providers.clear();
  auto v = run(rdma_userspace_rule(), f);
  ASSERT_TRUE(has(v, "ib.verbs.missing"));
  EXPECT_FALSE(has(v, "ib.verbs.no_provider"));
  f = rdma_node();
  f.ib.verbs_providers = {"efa"};
  v = run(rdma_userspace_rule(), f);
  auto* p = find(v, "ib.verbs.no_provider");
  ASSERT_NE(p, nullptr);
  EXPECT_NE(p->title.find("mlx5_0 (mlx5), mlx5_1 (mlx5)"), std::string::npos) << p->title;
  f.ib.devices = {ib_dev("rocep1s0", "Ethernet")};  // a name no provider table entry matches: not judged
  EXPECT_TRUE(has(run(rdma_userspace_rule(), f), "ib.userspace.ok"));
}

TEST(RdmaUserspaceRule, QuietWithoutDevicesOrUserSpaceFacts) {
  auto f = rdma_node();
  f.ib.userspace_probed = false;  // a record from before the probe read user space
  f.ib.dev_infiniband = -1;
  EXPECT_TRUE(run(rdma_userspace_rule(), f).empty());
  f = rdma_node();
  f.ib.devices.clear();
  EXPECT_TRUE(run(rdma_userspace_rule(), f).empty());
}

}  // namespace
}  // namespace dd::rules
