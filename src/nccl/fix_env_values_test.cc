// Every environment assignment a fix text advises (NCCL_SOCKET_IFNAME=..., NCCL_IB_HCA=...,
// NCCL_P2P_DISABLE=1,
// ...) is read back with NCCL's own grammar (nccl/if_list.h for the interface and HCA lists) and must mean
// what the text says it means: a list said to exclude must start with '^', one said to be exact must use
// '=', no entry may carry a misplaced '^' or '=' (NCCL reads "=^docker,lo" as the exact names "^docker" and
// "lo", i.e. only lo). Texts come from the catalogue, every finding doc, and the string literals of the
// sources that write fixes (src/rules, src/logs, src/comm finding docs, src/launch reports, src/nccl).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "comm/finding_docs.h"
#include "launch/failure_report.h"
#include "logs/analyze.h"
#include "logs/catalogue.h"
#include "nccl/env_value_check.h"
#include "nccl/if_list.h"
#include "nccl/info_line.h"
#include "rules/rule.h"
#include "common/test_files.h"

namespace dd::nccl {
namespace {

namespace fs = std::filesystem;

struct Text {
  std::string where;  // "catalogue nccl.x fix", "src/rules/foo.cc"
  std::string body;
};

// The contents of the string literals of a C++ file (comments and char literals skipped; raw strings
// kept), one per literal.
std::vector<std::string> string_literals(const std::string& src) {
  std::vector<std::string> out;
  bool joined = false;  // the previous literal continues into the next
  for (size_t i = 0; i < src.size(); ++i) {
    char c = src[i];
    if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      i = src.find('\n', i);
      if (i == std::string::npos) break;
    } else if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      i = src.find("*/", i + 2);
      if (i == std::string::npos) break;
      ++i;
    } else if (c == '\'') {
      for (++i; i < src.size() && src[i] != '\''; ++i)
        if (src[i] == '\\') ++i;
    } else if (c == 'R' && i + 1 < src.size() && src[i + 1] == '"') {
      size_t open = src.find('(', i);
      std::string close = ")" + src.substr(i + 2, open - i - 2) + "\"";
      size_t end = src.find(close, open);
      out.push_back(src.substr(open + 1, end - open - 1));
      i = end + close.size() - 1;
    } else if (c == '"') {
      std::string lit;
      for (++i; i < src.size() && src[i] != '"'; ++i) {
        if (src[i] == '\\' && i + 1 < src.size()) {
          ++i;
          lit += src[i] == 'n' ? '\n' : src[i];
        } else {
          lit += src[i];
        }
      }
      // Adjacent literals ("..." "...") are one string to the compiler: continue the same text.
      size_t next = src.find_first_not_of(" \t\n", i + 1);
      if (!out.empty() && joined)
        out.back() += lit;
      else
        out.push_back(lit);
      joined = next != std::string::npos && src[next] == '"';
      if (joined) i = next - 1;
    }
  }
  return out;
}

using test_files::slurp;

// The .cc files (not tests) whose literals hold fix texts.
bool writes_fixes(const fs::path& p) {
  std::string dir = p.parent_path().filename().string(), name = p.filename().string();
  if (p.extension() != ".cc" || name.find("_test.cc") != std::string::npos) return false;
  if (dir == "rules" || dir == "logs" || dir == "nccl") return true;
  if (dir == "comm") return name.find("finding") != std::string::npos;
  if (dir == "launch") return name.find("report") != std::string::npos;
  return false;
}

std::vector<Text> all_fix_texts() {
  std::vector<Text> texts;
  for (const auto& e : logs::Catalogue::builtin().entries()) {
    texts.push_back({"catalogue " + e.id + " fix", e.fix});
    texts.push_back({"catalogue " + e.id + " cause", e.cause});
  }
  std::vector<rules::FindingDoc> docs = rules::all_rule_docs();
  for (const auto& d : comm::comm_finding_docs()) docs.push_back(d);
  for (const auto& d : launch::launch_finding_docs()) docs.push_back(d);
  for (const auto& d : logs::logs_finding_docs()) docs.push_back({d.id, d.title, d.explanation});
  for (const auto& d : info_line_docs()) docs.push_back({d.id, d.title, d.explanation});
  for (const auto& d : docs) texts.push_back({"doc " + d.id, d.explanation});
  std::vector<fs::path> files;
  for (const auto& f : fs::recursive_directory_iterator(fs::path(DD_SOURCE_DIR) / "src"))
    if (f.is_regular_file() && writes_fixes(f.path())) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::string rel = fs::relative(f, DD_SOURCE_DIR).string();
    for (auto& lit : string_literals(slurp(f))) texts.push_back({rel, std::move(lit)});
  }
  return texts;
}

TEST(FixEnvValues, SourcesAndDocsAreRead) {
  auto texts = all_fix_texts();
  ASSERT_GT(texts.size(), 500u);
  size_t found = 0;
  for (const auto& t : texts) found += extract_env_values(t.body).size();
  EXPECT_GT(found, 30u);  // the extraction sees the assignments that are there
}

TEST(FixEnvValues, EveryAdvisedValueMeansWhatTheTextSays) {
  std::set<std::string> shown;
  for (const auto& t : all_fix_texts())
    for (const auto& v : extract_env_values(t.body)) {
      std::string problem = check_env_value(v);
      if (!problem.empty() && shown.insert(t.where + v.var + v.value).second)
        ADD_FAILURE() << t.where << ": " << v.var << "=" << v.value << " (\"…" << v.context
                      << "…\"): " << problem;
    }
}

}  // namespace
}  // namespace dd::nccl
