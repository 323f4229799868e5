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
  // fixtures/facts/h100x1/check_h100.txt: hostname -> loopback and two NCCL versions are the only warnings.
  auto f = load_h100();
  std::set<std::string> warn;
  for (const auto& x : run_node_rules(f, {}))
    if (x.severity >= report::Severity::warn) warn.insert(x.id);
  EXPECT_EQ(warn, (std::set<std::string>{"host.hostname_loopback", "nccl.multiple_versions"}));
}

TEST(RecordedH100, ChoosesTheFrameworksNcclAndTheNcclEngine) {
  auto f = load_h100();
  EXPECT_EQ(visible_gpu_count(f), 1);
  NcclLibChoice lib = choose_nccl_lib(f, "");
  EXPECT_EQ(lib.version, "2.28.9");
  EXPECT_NE(lib.path.find("site-packages"), std::string::npos) << lib.path;
  EXPECT_EQ(choose_engine(f, "", "", true).engine, "nccl");
  EXPECT_EQ(choose_engine(f, "", "", false).engine, "gloo");  // a build without the NCCL engine
  EXPECT_EQ(choose_engine(f, "", "/nonexistent/libnccl.so.2", true).engine, "gloo");
}

}  // namespace
}  // namespace dd::rules
