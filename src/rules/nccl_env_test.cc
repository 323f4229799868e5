// The NCCL settings rule on hand-made facts: NCCL_ALGO/NCCL_PROTO per NCCL version, NCCL_NET against the
// node's RDMA ports, numbers, levels, debug settings, list syntax and names NCCL does not read.
#include <gtest/gtest.h>

#include "rules/node_rules.h"
#include "rules/test_facts.h"

namespace dd::rules {
namespace {

using namespace testing;
using report::Severity;

probe::NodeFacts env_node(const std::string& version = "2.28.9") {
  probe::NodeFacts f;
  f.host.hostname = "gpu-node-1";
  set_gpus(f, 2);
  set_nccl_lib(f, version);
  return f;
}

std::vector<report::Finding> with(const std::string& k, const std::string& v,
                                  const std::string& version = "2.28.9") {
  auto f = env_node(version);
  set_nccl(f, k, v);
  return run(nccl_env_rule(), f);
}

TEST(NcclEnvRule, AlgoBogusFailsNamingTheValueAndTheValidNames) {
  auto v = with("NCCL_ALGO", "bogus");
  auto* a = find(v, "nccl.algo.invalid");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->severity, Severity::fail);
  EXPECT_NE(a->title.find("\"bogus\""), std::string::npos) << a->title;
  EXPECT_NE(a->title.find("2.28.9"), std::string::npos) << a->title;
  EXPECT_NE(a->fix.find("Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT"), std::string::npos)
      << a->fix;
  EXPECT_FALSE(has(v, "nccl.env.ok"));
  // Before 2.24 NCCL ignores the token: a warning, not a failure.
  auto old = with("NCCL_ALGO", "bogus", "2.21.5");
  a = find(old, "nccl.algo.invalid");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->severity, Severity::warn);
  EXPECT_NE(a->fix.find("Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree"), std::string::npos);
  auto old_syntax = with("NCCL_ALGO", "allreduce:tree", "2.21.5");
  a = find(old_syntax, "nccl.algo.invalid");
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->title.find("needs NCCL 2.24"), std::string::npos) << a->title;
}

TEST(NcclEnvRule, AlgoAndProtoValuesNcclAccepts) {
  for (const char* ok : {"ring", "Tree,Ring", "^nvls", "ring;allreduce:tree,collnetdirect;broadcast:ring",
                         "allreduce:^tree", "NVLS,NVLSTree,Ring"})
    EXPECT_TRUE(has(with("NCCL_ALGO", ok), "nccl.env.ok")) << ok;
  for (const char* ok : {"LL,Simple", "^LL128", "LL,Simple;allreduce:^LL", "simple"})
    EXPECT_TRUE(has(with("NCCL_PROTO", ok), "nccl.env.ok")) << ok;
  auto ll256 = with("NCCL_PROTO", "LL256");
  auto* p = find(ll256, "nccl.proto.invalid");
  ASSERT_NE(p, nullptr);
  EXPECT_NE(p->fix.find("LL, LL128, Simple"), std::string::npos);
  auto tree = with("NCCL_ALGO", "tree");
  auto* t = find(tree, "nccl.algo.none_left");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->severity, Severity::warn);
  EXPECT_NE(t->title.find("Broadcast"), std::string::npos);
  EXPECT_FALSE(has(with("NCCL_ALGO", "tree", "2.21.5"), "nccl.algo.none_left"));  // old NCCL falls back
  // The fix's own value passes the same grammar and leaves every function an algorithm (issue 12, item 6).
  const std::string fix = t->fix.substr(t->fix.find("NCCL_ALGO=\"") + 11);
  const std::string fixed = fix.substr(0, fix.find('"'));
  EXPECT_EQ(fixed, "ring;allreduce:tree");
  EXPECT_TRUE(has(with("NCCL_ALGO", fixed), "nccl.env.ok")) << fixed;
}

TEST(NcclEnvRule, NetIbWithoutInfiniBandFails) {
  auto f = env_node();
  set_nccl(f, "NCCL_NET", "IB");
  auto found = run(nccl_env_rule(), f);
  auto* n = find(found, "nccl.net.ib_unavailable");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->severity, Severity::fail);
  EXPECT_NE(n->title.find("no InfiniBand/RoCE device"), std::string::npos) << n->title;
  EXPECT_NE(n->fix.find("NCCL_NET=Socket"), std::string::npos);
  f.ib.sysfs_present = true;
  f.ib.devices = {ib_dev("mlx5_0", "InfiniBand", "1: DOWN")};
  found = run(nccl_env_rule(), f);
  n = find(found, "nccl.net.ib_unavailable");
  ASSERT_NE(n, nullptr);
  EXPECT_NE(n->title.find("has an ACTIVE port"), std::string::npos) << n->title;
  f.ib.devices = {ib_dev("mlx5_0", "InfiniBand")};
  EXPECT_TRUE(has(run(nccl_env_rule(), f), "nccl.env.ok"));  // an active port: fine
  set_nccl(f, "NCCL_IB_DISABLE", "1");
  EXPECT_TRUE(has(run(nccl_env_rule(), f), "nccl.net.ib_unavailable"));
  f.nccl.settings.erase("NCCL_IB_DISABLE");
  set_nccl(f, "NCCL_NET", "ib");  // case-insensitive
  EXPECT_FALSE(has(run(nccl_env_rule(), f), "nccl.net.ib_unavailable"));
  EXPECT_TRUE(has(with("NCCL_NET", "Socket"), "nccl.env.ok"));
  auto sockets = with("NCCL_NET", "Sockets");
  auto* u = find(sockets, "nccl.net.unknown");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->severity, Severity::warn);
  f = env_node();
  set_nccl(f, "NCCL_NET", "AWS Libfabric");
  set_nccl(f, "NCCL_NET_PLUGIN", "aws-ofi");
  EXPECT_EQ(find(run(nccl_env_rule(), f), "nccl.net.unknown")->severity, Severity::info);
}

TEST(NcclEnvRule, NumbersAsNcclReadsThem) {
  auto buff = with("NCCL_BUFFSIZE", "4M");
  auto* s = find(buff, "nccl.setting_suffix_ignored");
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s->title.find("leading number, 4,"), std::string::npos) << s->title;
  EXPECT_NE(s->fix.find("NCCL_BUFFSIZE=4194304"), std::string::npos) << s->fix;
  EXPECT_TRUE(has(with("NCCL_BUFFSIZE", "4194304"), "nccl.env.ok"));  // the fix's value is valid
  EXPECT_TRUE(has(with("NCCL_BUFFSIZE", "8388608"), "nccl.env.ok"));
  EXPECT_TRUE(has(with("NCCL_BUFFSIZE", "0x800000"), "nccl.env.ok"));
  EXPECT_TRUE(has(with("NCCL_NVLS_ENABLE", "true"), "nccl.setting_not_a_number"));
  EXPECT_TRUE(has(with("NCCL_NTHREADS", "100"), "nccl.setting_out_of_range"));
  EXPECT_TRUE(has(with("NCCL_NTHREADS", "256"), "nccl.env.ok"));
  EXPECT_TRUE(has(with("NCCL_MIN_NCHANNELS", "128"), "nccl.setting_out_of_range"));
  EXPECT_TRUE(has(with("NCCL_IB_RETRY_CNT", "9"), "nccl.setting_out_of_range"));
  EXPECT_TRUE(has(with("NCCL_SOCKET_NTHREADS", "4"), "nccl.env.ok"));
  // NCCL_P2P_DISABLE / NCCL_SHM_DISABLE / NCCL_IB_DISABLE: their own rules say it; no second finding here.
  EXPECT_FALSE(has(with("NCCL_P2P_DISABLE", "yes"), "nccl.setting_not_a_number"));
}

TEST(NcclEnvRule, LevelsDebugAndLists) {
  auto lv = with("NCCL_P2P_LEVEL", "nvl");
  auto* l = find(lv, "nccl.level.invalid");
  ASSERT_NE(l, nullptr);
  EXPECT_NE(l->fix.find("NCCL_P2P_LEVEL=NVL"), std::string::npos) << l->fix;
  EXPECT_TRUE(has(with("NCCL_P2P_LEVEL", "NVL"), "nccl.env.ok"));  // the fix's value is valid
  EXPECT_TRUE(has(with("NCCL_NET_GDR_LEVEL", "PHB"), "nccl.env.ok"));
  EXPECT_TRUE(has(with("NCCL_NET_GDR_LEVEL", "2"), "nccl.env.ok"));
  EXPECT_EQ(find(with("NCCL_DEBUG", "1"), "nccl.debug.invalid")->severity, Severity::info);
  EXPECT_TRUE(has(with("NCCL_DEBUG", "info"), "nccl.env.ok"));
  EXPECT_TRUE(has(with("NCCL_DEBUG_SUBSYS", "INIT,NETWORK"), "nccl.debug.invalid"));
  EXPECT_TRUE(has(with("NCCL_IB_HCA", "10.0.0.1"), "nccl.if_list.syntax"));
  EXPECT_TRUE(has(with("NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1"), "nccl.env.ok"));
}

TEST(NcclEnvRule, NamesNcclDoesNotRead) {
  auto typo = with("NCCL_SOCKET_IFNAMES", "eth0");
  auto* t = find(typo, "nccl.env.typo");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->severity, Severity::warn);
  EXPECT_NE(t->title.find("NCCL_SOCKET_IFNAME?"), std::string::npos) << t->title;
  EXPECT_EQ(find(with("NCCL_IB_GDR_LEVEL", "PHB"), "nccl.env.unknown_name")->severity, Severity::info);
  EXPECT_TRUE(run(nccl_env_rule(),
                  [] {
                    auto f = env_node();
                    set_env(f, "NCCL_VERSION", "2.28.3-1");  // NGC images set it: not NCCL's, not a typo
                    set_env(f, "NCCL_ASYNC_ERROR_HANDLING", "1");
                    return f;
                  }())
                  .empty());
}

}  // namespace
}  // namespace dd::rules
