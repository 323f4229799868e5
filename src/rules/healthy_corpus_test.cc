// The healthy corpus (fixtures/facts/healthy/README.md): facts recorded on healthy GPU nodes (4x H100 whole
// and with CUDA_VISIBLE_DEVICES subsets, 2x H200, 1x H100) must give no finding above info, and a
// container-sized /dev/shm on the same 4x H100 only the data loaders' warning. A rule that starts to warn on
// a healthy machine fails here, naming the file and the finding.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "rules/rule.h"

namespace dd::rules {
namespace {

probe::NodeFacts load_corpus(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in).get<probe::NodeFacts>();
}

std::vector<std::string> above_info(const std::string& path) {
  std::vector<std::string> out;
  for (const auto& f : run_node_rules(load_corpus(path), {}))
    if (f.severity > report::Severity::info) out.push_back(f.id + ": " + f.title);
  return out;
}

TEST(HealthyCorpus, EveryRecordedHealthyNodePasses) {
  const std::string dir = std::string(DD_FIXTURE_DIR) + "/facts/";
  std::vector<std::string> files = {dir + "h200x2.json", dir + "h100x1/facts_h100.json"};
  for (const auto& e : std::filesystem::directory_iterator(dir + "healthy"))
    if (e.path().extension() == ".json" && e.path().filename().string().find("_shm") == std::string::npos)
      files.push_back(e.path().string());
  ASSERT_GE(files.size(), 6u);
  for (const auto& f : files) EXPECT_EQ(above_info(f), std::vector<std::string>{}) << f;
}

TEST(HealthyCorpus, ContainerSizedShmIsOnlyTheDataLoadersWarning) {
  for (const char* name : {"h100x4_shm64m.json", "h100x4_shm1m.json"}) {
    const std::string path = std::string(DD_FIXTURE_DIR) + "/facts/healthy/" + name;
    const auto v = run_node_rules(load_corpus(path), {});
    std::vector<std::string> loud;
    for (const auto& f : v)
      if (f.severity > report::Severity::info) loud.push_back(f.id + " " + report::severity_name(f.severity));
    EXPECT_EQ(loud, std::vector<std::string>{"sys.shm.small warn"}) << name;
  }
}

}  // namespace
}  // namespace dd::rules
