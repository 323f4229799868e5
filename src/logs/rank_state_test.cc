// Where each rank stands: a traceback in the log of a rank that a launcher saw exit 0 is not how it stopped
// (the real logs of fixtures/logs/h200x2_child_traceback: a multiprocessing child of rank 1 raised into its
// output while rank 1 ran on and exited 0); the same log with a failing exit is.
#include "logs/rank_state.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/test_files.h"
#include "logs/catalogue.h"

namespace dd::logs {
namespace {

const std::string kDir = std::string(DD_FIXTURE_DIR) + "/logs/h200x2_child_traceback";

std::vector<report::Finding> findings_of(const std::string& dir) {
  LogsOptions opt;
  opt.paths = {dir};
  return logs_findings(analyze_logs(opt, Catalogue::builtin()), Catalogue::builtin());
}

bool has(const std::vector<report::Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return true;
  return false;
}

TEST(RankState, AChildsTracebackInTheLogOfARankThatExitedZeroIsNotItsStop) {
  LogsOptions opt;
  opt.paths = {kDir};
  const LogsResult r = analyze_logs(opt, Catalogue::builtin());
  for (const RankState& s : rank_states(r)) EXPECT_EQ(s.stopped, "") << s.who;
  const auto fs = findings_of(kDir);
  EXPECT_FALSE(has(fs, "logs.rank.stopped_first"));
  for (const auto& f : fs) EXPECT_NE(f.severity, report::Severity::fail) << f.id << ": " << f.title;
}

TEST(RankState, TheSameTracebackWithAFailingExitIsTheStop) {
  test_files::ScratchDir scratch;
  std::filesystem::copy(kDir + "/node0.rank0.log", scratch.path / "node0.rank0.log");
  std::string rank1 = test_files::slurp(kDir + "/node0.rank1.log");
  const std::string zero = "exited with status 0";
  ASSERT_NE(rank1.find(zero), std::string::npos);
  rank1.replace(rank1.find(zero), zero.size(), "exited with status 1");
  std::ofstream(scratch.path / "node0.rank1.log") << rank1;
  const auto fs = findings_of(scratch.path.string());
  ASSERT_TRUE(has(fs, "logs.rank.stopped_first"));
  for (const auto& f : fs)
    if (f.id == "logs.rank.stopped_first") {
      EXPECT_EQ(f.rank, 1);
      EXPECT_NE(f.title.find("raised RuntimeError"), std::string::npos) << f.title;
    }
}

}  // namespace
}  // namespace dd::logs
