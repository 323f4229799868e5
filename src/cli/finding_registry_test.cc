// The one registry of finding docs: ids are unique across every source and each has a title and an
// explanation; and every finding id the code names (a string literal "area.word..." whose area is one the
// docs use) is documented, so an id cannot ship without its `explain` text.
#include "cli/finding_registry.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "logs/catalogue.h"
#include "rules/cluster_rule.h"
#include "rules/rule.h"

namespace dd::cli {
namespace {

std::set<std::string> documented_ids() {
  std::set<std::string> ids;
  for (const auto& d : all_finding_docs()) ids.insert(d.id);
  for (const auto& e : logs::Catalogue::builtin().entries()) ids.insert(e.id);
  return ids;
}

TEST(FindingRegistry, UniqueIdsWithTitleAndExplanation) {
  std::set<std::string> seen;
  for (const auto& d : all_finding_docs()) {
    EXPECT_TRUE(seen.insert(d.id).second) << "two docs for " << d.id;
    EXPECT_FALSE(d.title.empty()) << d.id;
    EXPECT_FALSE(d.explanation.empty()) << d.id;
  }
  for (const auto& e : logs::Catalogue::builtin().entries())
    EXPECT_TRUE(seen.insert(e.id).second) << "catalogue id also in a doc table: " << e.id;
  EXPECT_GT(seen.size(), 200u);
}

// Literals that look like ids of a documented area but are not finding ids (rule names and prefixes of
// documented ids are accepted as they are).
const std::set<std::string> kNotIds = {
    "probe.error", "probe.errors",  // JSON keys of the facts
    "paddle.distributed.launch",    // a Python module name
};

// The source without its // comments (an id named in a comment is an example, not an emitted id).
std::string without_comments(const std::string& s) {
  std::string out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) {
    const size_t c = line.find("//");
    out += (c == std::string::npos ? line : line.substr(0, c)) + "\n";
  }
  return out;
}

TEST(FindingRegistry, EveryIdTheCodeNamesIsDocumented) {
  const std::set<std::string> ids = documented_ids();
  std::set<std::string> areas, rule_names;
  for (const auto& id : ids) areas.insert(id.substr(0, id.find('.')));
  for (const auto& r : rules::node_rules()) rule_names.insert(r.name);
  for (const auto& r : rules::cluster_rules()) rule_names.insert(r.name);
  const std::regex literal(R"re("([a-z][a-z0-9_]*(\.[a-z0-9_]+)+)")re");
  std::vector<std::string> undocumented;
  size_t checked = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(DD_SOURCE_DIR) + "/src")) {
    const std::string path = e.path().string();
    const std::string ext = e.path().extension().string();
    if ((ext != ".cc" && ext != ".h") || e.path().filename().string().find("test") != std::string::npos)
      continue;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = without_comments(text.str());
    for (std::sregex_iterator m(s.begin(), s.end(), literal), end; m != end; ++m) {
      const std::string id = (*m)[1];
      if (!areas.count(id.substr(0, id.find('.'))) || kNotIds.count(id) || rule_names.count(id)) continue;
      ++checked;
      if (ids.count(id)) continue;
      auto next = ids.lower_bound(id + ".");  // a family name: some documented id starts with it
      if (next != ids.end() && next->rfind(id + ".", 0) == 0) continue;
      undocumented.push_back(id + " (" + e.path().filename().string() + ")");
    }
  }
  EXPECT_GT(checked, 300u);  // the scan found the ids at all
  EXPECT_TRUE(undocumented.empty()) << "ids without a doc: " << ::testing::PrintToString(undocumented);
}

}  // namespace
}  // namespace dd::cli
