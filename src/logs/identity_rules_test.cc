// logs.rank.env_differs on the hand-built four-rank set (fixtures/logs/sets/healthy_four) with NCCL's own
// "X set by environment to Y" and "NCCL version" lines added (NCCL 2.28's wording, param.cc/tuning.cc): the
// odd rank is named, a rank without INFO lines is unknown rather than unset, another NCCL on one rank is
// named first and logs.nccl.version_mismatch stays.
#include <gtest/gtest.h>

#include "common/test_files.h"
#include "logs/analyze.h"

namespace dd::logs {
namespace {

const std::string kIrtSets = std::string(DD_FIXTURE_DIR) + "/logs/sets/";

std::string irt_rank_text(int r, const std::string& set = "healthy_four") {
  return test_files::slurp(kIrtSets + set + "/rank" + std::to_string(r) + ".log");
}

// Inserts an INFO line of the process after its "NCCL version" line (where NCCL prints its settings), with
// that line's own header ("[time] host:pid:tid [dev] NCCL INFO ").
std::string irt_with_line(std::string text, const std::string& msg) {
  size_t v = text.find("NCCL version");
  size_t start = text.rfind('\n', v) == std::string::npos ? 0 : text.rfind('\n', v) + 1;
  const std::string header = text.substr(start, v - start);
  text.insert(text.find('\n', v) + 1, header + msg + "\n");
  return text;
}

std::vector<report::Finding> irt_findings(const std::vector<std::string>& texts) {
  std::vector<FileResult> rs;
  for (size_t i = 0; i < texts.size(); ++i)
    rs.push_back(
        scan_buffer("rank" + std::to_string(i) + ".log", texts[i], Catalogue::builtin(), ScanOptions{}));
  LogsResult r = merge_results(std::move(rs), Catalogue::builtin());
  return logs_findings(r, Catalogue::builtin());
}

const report::Finding* irt_find(const std::vector<report::Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(LogsEnvDiffers, OneRankWithItsOwnSetting) {
  std::vector<std::string> t = {irt_rank_text(0), irt_rank_text(1), irt_rank_text(2), irt_rank_text(3)};
  ASSERT_NE(t[3].find("NCCL version"), std::string::npos);
  for (int r = 0; r < 4; ++r) t[r] = irt_with_line(t[r], "NCCL_NVLS_ENABLE set by environment to 0.");
  t[3] = irt_with_line(t[3], "NCCL_PROTO set by environment to LL");
  auto fs = irt_findings(t);
  const auto* f = irt_find(fs, "logs.rank.env_differs");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 3);
  EXPECT_EQ(f->title, "rank 3 has NCCL_PROTO=LL where ranks 0-2 leave it unset");
  EXPECT_EQ(f->severity, report::Severity::warn);  // the job ran fine: a warning, not its failure
}

// Rank 2 ran with NCCL_DEBUG=WARN (no INFO lines): its settings are unknown, so the others' NCCL_PROTO is not
// "different from rank 2's".
TEST(LogsEnvDiffers, RankWithoutInfoLinesIsUnknownNotUnset) {
  std::vector<std::string> t = {irt_rank_text(0), irt_rank_text(1), irt_rank_text(2), irt_rank_text(3)};
  for (int r : {0, 1, 3}) t[r] = irt_with_line(t[r], "NCCL_PROTO set by environment to Simple");
  std::string warn_only;
  for (size_t a = 0, b; a < t[2].size(); a = b + 1) {
    b = t[2].find('\n', a);
    if (b == std::string::npos) b = t[2].size();
    std::string line = t[2].substr(a, b - a);
    if (line.find("NCCL INFO") == std::string::npos) warn_only += line + "\n";
  }
  t[2] = warn_only;
  EXPECT_EQ(irt_find(irt_findings(t), "logs.rank.env_differs"), nullptr);
}

TEST(LogsEnvDiffers, AnotherNcclOnOneRankLeads) {
  std::vector<std::string> t = {irt_rank_text(0), irt_rank_text(1), irt_rank_text(2), irt_rank_text(3)};
  size_t k = t[1].find("2.28.9+cuda13.0");
  ASSERT_NE(k, std::string::npos);
  t[1].replace(k, 15, "2.28.3+cuda13.0");
  auto fs = irt_findings(t);
  const auto* f = irt_find(fs, "logs.rank.env_differs");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 1);
  EXPECT_EQ(f->severity, report::Severity::fail);
  EXPECT_EQ(f->title, "rank 1 loads NCCL 2.28.3+cuda13.0 where ranks 0,2,3 load 2.28.9+cuda13.0");
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].id, "logs.rank.env_differs");
  EXPECT_NE(irt_find(fs, "logs.nccl.version_mismatch"), nullptr);
}

// A rank that stopped first (rank 1 raised while the others timed out) is the stronger culprit: it leads, the
// setting of rank 3 follows.
TEST(LogsEnvDiffers, AStrongerCulpritLeads) {
  std::vector<std::string> t;
  for (int r = 0; r < 4; ++r) t.push_back(irt_rank_text(r, "traceback_while_waiting"));
  t[3] = irt_with_line(t[3], "NCCL_PROTO set by environment to LL");
  auto fs = irt_findings(t);
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].id, "logs.rank.stopped_first") << fs[0].title;
  EXPECT_EQ(fs[0].rank, 1);
  const auto* f = irt_find(fs, "logs.rank.env_differs");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 3);
}

}  // namespace
}  // namespace dd::logs
