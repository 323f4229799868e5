// Every catalogue entry is triggered by its fixture (fixtures/logs/catalogue/<id>.log, realistic excerpts),
// and healthy NCCL INFO logs trigger nothing. Also: the catalogue's own validation.
#include "logs/catalogue.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/test_files.h"
#include "logs/analyze.h"
#include "logs/file_scan.h"

namespace dd::logs {
namespace {

const std::string kCatalogueFix = std::string(DD_FIXTURE_DIR) + "/logs";

using test_files::slurp;

TEST(LogsCatalogue, BuiltinIsWellFormed) {
  const auto& cat = Catalogue::builtin();
  ASSERT_GE(cat.entries().size(), 40u);
  for (const auto& e : cat.entries()) {
    EXPECT_FALSE(e.cause.empty()) << e.id;
    EXPECT_FALSE(e.fix.empty()) << e.id;
    EXPECT_NE(e.id.find('.'), std::string::npos) << e.id;
    EXPECT_FALSE(e.source.empty()) << e.id;
  }
}

// The embedded catalogue compiles its patterns on first use (parse skips the check for it): each must
// compile.
TEST(LogsCatalogue, EmbeddedPatternsCompile) {
  size_t patterns = 0;
  for (const auto& e : Catalogue::builtin().entries()) {
    if (e.pattern.empty()) continue;
    ++patterns;
    ASSERT_TRUE(e.re) << e.id;
    EXPECT_NO_THROW(e.re->get()) << e.id << ": " << e.pattern;
  }
  EXPECT_GE(patterns, 20u);
  // The same check refuses a bad pattern when asked to skip it at parse: get() throws, it never returns junk.
  auto lazy = Catalogue::parse(R"J([{"id":"a.b","title":"t","needles":["xx"],"pattern":"(["}])J", false);
  ASSERT_TRUE(lazy.ok());
  EXPECT_THROW(lazy.value().entries()[0].re->get(), std::regex_error);
}

// A finding entry's fixture makes it a finding; an entry with no finding role is matched by its role's reader
// (catalogue_roles_test.cc: FixturesOfRoleEntriesReachTheirReaders).
TEST(LogsCatalogue, EveryEntryHasAFixtureThatTriggersIt) {
  const auto& cat = Catalogue::builtin();
  ScanOptions opt;
  for (size_t i = 0; i < cat.entries().size(); ++i) {
    const auto& e = cat.entries()[i];
    std::string path = kCatalogueFix + "/catalogue/" + e.id + ".log";
    ASSERT_TRUE(std::filesystem::exists(path)) << "no fixture for " << e.id;
    FileResult r = scan_file(path, cat, opt);
    if (!e.is_finding()) {
      EXPECT_FALSE(r.hits.count(i)) << e.id << " has no finding role but was a finding";
      continue;
    }
    ASSERT_TRUE(r.hits.count(i)) << e.id << " not triggered by " << path;
    const Hit& h = r.hits[i].samples.at(0);
    EXPECT_GT(h.line, 0u);
    EXPECT_EQ(h.file, path);
    // Titles with {n} must have their captures.
    std::string title = Catalogue::render_title(e, h.captures);
    EXPECT_EQ(title.find("…"), std::string::npos) << e.id << ": " << title;
  }
}

TEST(LogsCatalogue, HealthyInfoLogsTriggerNothing) {
  const auto& cat = Catalogue::builtin();
  LogsOptions opt;
  opt.paths = {kCatalogueFix + "/healthy"};
  LogsResult r = analyze_logs(opt, cat);
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_TRUE(r.hits.empty());
  EXPECT_EQ(r.unmatched_warns.count, 0u);
  for (const auto& f : logs_findings(r, cat))
    EXPECT_LT(f.severity, report::Severity::warn) << f.id << ": " << f.title;
  // The same text repeated many times (bulk INFO) still matches nothing.
  std::string text;
  std::string one = slurp(kCatalogueFix + "/healthy/nccl.gpu-node-1.12345.log");
  for (int i = 0; i < 200; ++i) text += one;
  FileResult big = scan_buffer("big", text, cat, ScanOptions{});
  EXPECT_TRUE(big.hits.empty());
}

TEST(LogsCatalogue, HealthyGpuReportIsNoEccError) {
  // distdoctor's own healthy verdict, saved beside the logs (launch --json > report.json), and nvidia-smi's
  // table header name ECC without any error: CUDA's error is "uncorrectable ECC error encountered".
  const auto& cat = Catalogue::builtin();
  for (std::string line : {"\"title\": \"2 GPU(s): no uncorrectable ECC error, no pending retirement/remap\"",
                           "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |"})
    EXPECT_TRUE(scan_buffer("report.json", line + "\n", cat, ScanOptions{}).hits.empty()) << line;
  FileResult bad =
      scan_buffer("r0.log", "RuntimeError: CUDA error: uncorrectable ECC error encountered\n", cat, {});
  ASSERT_EQ(bad.hits.size(), 1u);
}

TEST(LogsCatalogue, ParseRejectsBrokenEntries) {
  EXPECT_FALSE(Catalogue::parse("not json").ok());
  EXPECT_FALSE(Catalogue::parse(R"J([{"id":"a.b","title":"t"}])J").ok());  // no needles
  EXPECT_FALSE(Catalogue::parse(R"J([{"id":"a.b","title":"t","needles":["x"],"pattern":"(["}])J").ok());
  EXPECT_FALSE(Catalogue::parse(
                   R"J([{"id":"a.b","title":"t","needles":["x"]},{"id":"a.b","title":"t","needles":["y"]}])J")
                   .ok());
  auto ok = Catalogue::parse(R"J([{"id":"a.b","title":"got {1}","needles":["boom"],"pattern":"boom (\\d+)"
}])J");
  ASSERT_TRUE(ok.ok());
  std::vector<CatalogueMatch> m;
  ok->match("xx boom 42", false, m);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(Catalogue::render_title(ok->entries()[0], m[0].captures), "got 42");
  m.clear();
  ok->match("xx boom", false, m);  // needle but no regex match
  EXPECT_TRUE(m.empty());
  ok->match("xx boom 42", true, m);  // INFO lines only see info_lines entries
  EXPECT_TRUE(m.empty());
}

// The role is the entry's own: "cause" by default, "consequence" when it says so, nothing else.
TEST(LogsCatalogue, AnEntrySaysItsRole) {
  auto two = Catalogue::parse(
      R"J([{"id":"a.b","title":"t","needles":["xx"]},{"id":"a.c","title":"t","needles":["yy"],"role":"consequence"}])J");
  ASSERT_TRUE(two.ok()) << two.error().message();
  EXPECT_TRUE(two->entries()[0].has_role(CatalogueRole::cause));
  EXPECT_FALSE(two->entries()[0].has_role(CatalogueRole::consequence));
  EXPECT_TRUE(two->entries()[1].has_role(CatalogueRole::consequence));
  EXPECT_FALSE(two->entries()[1].has_role(CatalogueRole::cause));
  auto bad = Catalogue::parse(R"J([{"id":"a.b","title":"t","needles":["xx"],"role":"witness"}])J");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("a.b: role must be"), std::string::npos) << bad.error().message();
}

TEST(LogsCatalogue, LongLinesWithNeedlesDoNotBlowTheRegexStack) {
  // std::regex recursed per character over 60 KB lines and crashed before the regex window existed.
  const auto& cat = Catalogue::builtin();
  std::string text = "Container rank 1 status failed cmd " + std::string(60000, 'x') + " code 1 log a.log\n" +
                     "[rank0]: torch.distributed.DistBackendError: " + std::string(60000, 'y') + "\n" +
                     std::string(30000, ' ') +
                     "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000\n";
  FileResult r = scan_buffer("long", text, cat, ScanOptions{});
  bool dup = false;
  for (const auto& [i, eh] : r.hits)
    dup |= cat.entries()[i].id == "nccl.duplicate_gpu" && eh.samples[0].captures.at(2) == "1a000";
  EXPECT_TRUE(dup);
}

TEST(LogsCatalogue, MatchTextForExplain) {
  const auto& cat = Catalogue::builtin();
  auto f = match_text("NCCL WARN Bootstrap : no socket interface found", cat);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "nccl.bootstrap_no_interface");
  f = match_text(
      "torch.distributed.DistBackendError: NCCL error ... Last error:\nDuplicate GPU detected : rank 1 and "
      "rank 0 both on CUDA device 18000",
      cat);
  bool dup = false;
  for (const auto& x : f)
    dup |= x.id == "nccl.duplicate_gpu" && x.title.find("Ranks 1 and 0") != std::string::npos;
  EXPECT_TRUE(dup);
  EXPECT_TRUE(match_text("all good here", cat).empty());
}

}  // namespace
}  // namespace dd::logs
