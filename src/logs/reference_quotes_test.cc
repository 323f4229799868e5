// Every error message and log line quoted in the reference documents (fixtures/explain/reference_quotes.tsv,
// extracted by hand with the finding id each must give) is recognised by `explain` as that id first, and the
// same line inside a log file, among ordinary lines, gives the same first known-error finding in `logs`.
// Rows with id '-' (progress or consequence lines) and nccl.line.* readings must give no warn/fail.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "logs/analyze.h"
#include "logs/catalogue.h"
#include "logs/explain_text.h"

namespace dd::logs {
namespace {

struct Quote {
  std::string source, id, text;
  int line = 0;  // in the TSV
};

std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char c = s[++i];
      out += c == 't' ? '\t' : c == 'n' ? '\n' : c;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<Quote> load_quotes() {
  std::ifstream in(std::string(DD_FIXTURE_DIR) + "/explain/reference_quotes.tsv");
  std::vector<Quote> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    size_t a = line.find('\t'), b = line.find('\t', a + 1);
    EXPECT_NE(b, std::string::npos) << "line " << n << " needs 3 columns";
    if (b == std::string::npos) continue;
    out.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), unescape(line.substr(b + 1)), n});
  }
  return out;
}

bool is_reading(const std::string& id) { return id == "-" || id.rfind("nccl.line.", 0) == 0; }

// The quote among ordinary lines of a training job's output.
std::string as_log(const std::string& quote) {
  return "2026-11-21 10:00:01,104 INFO train.py:88 loading dataset from the shared store (50000 samples)\n"
         "2026-11-21 10:00:03,517 INFO train.py:112 model built: 24 layers, 350M parameters\n"
         "[rank0]:[W1121 10:00:04.001000 812 site-packages/torch/distributed/run.py:793] OMP_NUM_THREADS set "
         "to 1\n" +
         quote +
         "\n"
         "2026-11-21 10:00:09,880 INFO train.py:140 step 0 finished in 4.21 s\n";
}

// The first finding of `logs` that comes from the catalogue (the cross-rank rules, logs.*, reason about sets
// of ranks, which one file of one process does not show).
const report::Finding* first_known_error(const std::vector<report::Finding>& fs, const Catalogue& cat) {
  for (const auto& f : fs)
    if (cat.find(f.id)) return &f;
  return nullptr;
}

TEST(ReferenceQuotes, FixtureCoversTheReferences) {
  auto quotes = load_quotes();
  ASSERT_GE(quotes.size(), 40u);
  std::set<std::string> sources;
  for (const auto& q : quotes) sources.insert(q.source);
  EXPECT_GE(sources.size(), 4u);  // 000..003 quote messages; 004 quotes none
}

TEST(ReferenceQuotes, ExplainRecognisesEveryQuote) {
  const auto& cat = Catalogue::builtin();
  for (const auto& q : load_quotes()) {
    auto found = explain_text(q.text, cat);
    if (q.id == "-") {
      for (const auto& f : found)
        EXPECT_LT(f.severity, report::Severity::warn)
            << "line " << q.line << ": " << f.id << " for " << q.text;
      continue;
    }
    ASSERT_FALSE(found.empty()) << "line " << q.line << " not recognised: " << q.text;
    EXPECT_EQ(found[0].id, q.id) << "line " << q.line << ": " << q.text;
    EXPECT_TRUE(cat.find(q.id) || q.id.rfind("nccl.line.", 0) == 0) << q.id << " is no known id";
  }
}

TEST(ReferenceQuotes, TheSameLineInALogGivesTheSameFirstFinding) {
  const auto& cat = Catalogue::builtin();
  const char* tmp = std::getenv("TMPDIR");
  std::filesystem::path dir =
      std::filesystem::path(tmp && *tmp ? tmp : "/tmp") / ("dd_quotes_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const auto& q : load_quotes()) {
    std::string path = (dir / ("quote" + std::to_string(q.line) + ".log")).string();
    std::ofstream(path) << as_log(q.text);
    LogsOptions opt;
    opt.paths = {path};
    opt.jobs = 1;
    auto findings = logs_findings(analyze_logs(opt, cat), cat);
    const report::Finding* first = first_known_error(findings, cat);
    if (is_reading(q.id)) {
      if (first) {
        EXPECT_LT(first->severity, report::Severity::warn) << "line " << q.line << ": " << first->id;
      }
    } else {
      ASSERT_NE(first, nullptr) << "line " << q.line << ": nothing found in a log holding " << q.text;
      EXPECT_EQ(first->id, q.id) << "line " << q.line << ": " << q.text;
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dd::logs
