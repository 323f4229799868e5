// RDMA user-space probe on built trees: /dev/infiniband, libibverbs.so.1 through LD_LIBRARY_PATH and the
// usual directories, provider drivers from <libdir>/libibverbs and /etc/libibverbs.d.
#include "probe/rdma_userspace.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace dd::probe {
namespace {

struct Tree {
  std::string root;
  Tree() {
    const char* tmp = std::getenv("TMPDIR");
    root = std::string(tmp && *tmp ? tmp : "/tmp") + "/dd_rdma_us_XXXXXX";
    EXPECT_NE(mkdtemp(root.data()), nullptr);
  }
  ~Tree() { std::filesystem::remove_all(root); }
  void file(const std::string& path) {
    std::filesystem::create_directories(std::filesystem::path(root + path).parent_path());
    std::ofstream(root + path) << "x";
  }
};

TEST(RdmaUserspace, ProviderNames) {
  EXPECT_EQ(verbs_provider_name("libmlx5-rdmav34.so"), "mlx5");
  EXPECT_EQ(verbs_provider_name("libbnxt_re-rdmav25.so"), "bnxt_re");
  EXPECT_EQ(verbs_provider_name("efa.driver"), "efa");
  EXPECT_EQ(verbs_provider_name("libibverbs.so.1"), "");
}

TEST(RdmaUserspace, FullInstall) {
  Tree t;
  t.file("/dev/infiniband/uverbs0");
  t.file("/dev/infiniband/rdma_cm");
  t.file("/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
  t.file("/usr/lib/x86_64-linux-gnu/libibverbs/libmlx5-rdmav34.so");
  t.file("/etc/libibverbs.d/efa.driver");
  IbFacts ib;
  probe_rdma_userspace(*make_real_fs(t.root), {}, ib);
  EXPECT_TRUE(ib.userspace_probed);
  EXPECT_EQ(ib.dev_infiniband, 1);
  EXPECT_EQ(ib.dev_files, (std::vector<std::string>{"rdma_cm", "uverbs0"}));
  EXPECT_EQ(ib.verbs_lib, "/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
  EXPECT_EQ(ib.verbs_providers, (std::vector<std::string>{"efa", "mlx5"}));
}

TEST(RdmaUserspace, ContainerWithoutDevicesOrVerbs) {
  Tree t;
  t.file("/opt/ofed/lib/libibverbs.so.1");
  IbFacts ib;
  probe_rdma_userspace(*make_real_fs(t.root), {}, ib);
  EXPECT_EQ(ib.dev_infiniband, 0);
  EXPECT_TRUE(ib.verbs_lib.empty());  // not where the loader looks
  EXPECT_TRUE(ib.verbs_providers.empty());
  probe_rdma_userspace(*make_real_fs(t.root), {{"LD_LIBRARY_PATH", "/nowhere::/opt/ofed/lib"}}, ib);
  EXPECT_EQ(ib.verbs_lib, "/opt/ofed/lib/libibverbs.so.1");
}

}  // namespace
}  // namespace dd::probe
