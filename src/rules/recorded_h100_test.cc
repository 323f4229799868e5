// The rules and the engine/NCCL choice on facts recorded by `distdoctor facts --json` on a real 1x H100 node
// (fixtures/facts/h100x1/facts_h100.json; NCCL 2.28.3 from the loader and PyTorch's 2.28.9 in a virtualenv,
// recorded as /srv/train-venv). The same node's check output and timings are in fixtures/facts/h100x1/.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "rules/engine_choice.h"
#include "rules/rule.h"

namespace dd::rules {
namespace {

probe::NodeFacts load_h100() {
  std::ifstream in(std::string(DD_FIXTURE_DIR) + "/facts/h100x1/facts_h100.json");
  EXPECT_TRUE(in.good());
  return nlohmann::json::parse(in).get<probe::NodeFacts>();
}

TEST(RecordedH100, HostIdentityIsFilled) {
  auto f = load_h100();
  EXPECT_EQ(f.host.boot_id.size(), 36u) << f.host.boot_id;
  EXPECT_EQ(f.host.netns.rfind("net:[", 0), 0u) << f.host.netns;
  ASSERT_EQ(f.gpu.gpus.size(), 1u);
  EXPECT_NE(f.gpu.gpus[0].name.find("H100"), std::string::npos);
}

TEST(RecordedH100, SameWarningsAsTheLiveCheck) {
  // fixtures/facts/h100x1/check_h100.txt: hostname -> loopback and two NCCL versions were the warnings; on a
  // single-node check the loopback hostname harms nothing and is info now (issue 12, item 8).
  auto f = load_h100();
  std::set<std::string> warn;
  auto v = run_node_rules(f, {});
  for (const auto& x : v)
    if (x.severity >= report::Severity::warn) warn.insert(x.id);
  EXPECT_TRUE(warn.empty()) << "PyTorch's own NCCL beside the system's is no warning";
  bool env_ok = false, loopback_info = false;
  for (const auto& x : v) {
    env_ok |= x.id == "nccl.env.ok";  // NCCL_NVLS_ENABLE=0 valid; NCCL_VERSION (the image's) not reported
    loopback_info |= x.id == "host.hostname_loopback" && x.severity == report::Severity::info;
  }
  EXPECT_TRUE(env_ok);
  EXPECT_TRUE(loopback_info);
  CheckOptions two_nodes;
  two_nodes.nnodes = 2;
  warn.clear();
  for (const auto& x : run_node_rules(f, two_nodes))
    if (x.severity >= report::Severity::warn) warn.insert(x.id);
  EXPECT_EQ(warn, (std::set<std::string>{"host.hostname_loopback"}));
}

TEST(RecordedH100, ChoosesTheFrameworksNcclAndTheNcclEngine) {
  auto f = load_h100();
  EXPECT_EQ(visible_gpu_count(f), 1);
  NcclLibChoice lib = choose_nccl_lib(f, "");
  EXPECT_EQ(lib.version, "2.28.9");
  EXPECT_NE(lib.path.find("site-packages"), std::string::npos) << lib.path;
  EXPECT_EQ(choose_engine(f, "", "", true).engine, EngineKind::nccl);
  EXPECT_EQ(choose_engine(f, "", "", false).engine, EngineKind::gloo);  // a build without the NCCL engine
  EXPECT_EQ(choose_engine(f, "", "/nonexistent/libnccl.so.2", true).engine, EngineKind::gloo);
}

TEST(RecordedH100, NcclAlgoAndNetSetWrongAreFailsBeforeAnyCollective) {
  // fixtures/facts/h100x1_nccl_env: `facts --json` on the same H100 with NCCL_ALGO=bogus NCCL_NET=IB (no IB
  // there); check_before.json shows the check gave no fail for them before the NCCL env rule. The NCCL logs
  // of the same settings are in fixtures/logs/h100x1_issue12 (algo_bogus, net_ib).
  std::ifstream in(std::string(DD_FIXTURE_DIR) + "/facts/h100x1_nccl_env/facts.json");
  ASSERT_TRUE(in.good());
  auto f = nlohmann::json::parse(in).get<probe::NodeFacts>();
  std::set<std::string> fails;
  for (const auto& x : run_node_rules(f, {}))
    if (x.severity == report::Severity::fail) fails.insert(x.id);
  EXPECT_EQ(fails, (std::set<std::string>{"nccl.algo.invalid", "nccl.net.ib_unavailable"}));
}

}  // namespace
}  // namespace dd::rules
