// One analysis of a run folder: on every run folder `distdoctor launch` left in fixtures (real runs on an
// H200, fixtures/launch/*/CASE/run), launch's findings rebuilt from the saved attempt record lead `logs`, and
// the logs alone (the attempt record left out) never blame another rank than launch does. Each case's culprit
// is checked too: the rank that is different, named first.
#include "cli/run_records.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/test_files.h"
#include "launch/failure_report.h"
#include "logs/analyze.h"
#include "logs/catalogue.h"

namespace dd::cli {
namespace {

namespace fs = std::filesystem;

struct Lead {
  std::string id;
  int rank = -1;
};

// The run folders launch left in fixtures, by case name.
std::map<std::string, std::string> run_folders() {
  std::map<std::string, std::string> out;
  for (const auto& set : fs::directory_iterator(std::string(DD_FIXTURE_DIR) + "/launch"))
    if (set.is_directory())
      for (const auto& c : fs::directory_iterator(set.path()))
        if (fs::exists(c.path() / "run"))
          out[set.path().filename().string() + "/" + c.path().filename().string()] =
              (c.path() / "run").string();
  return out;
}

// Those of one recorded set ("h200x2_stragglers/").
std::map<std::string, std::string> run_folders_of(const std::string& prefix) {
  std::map<std::string, std::string> out;
  for (const auto& [name, folder] : run_folders())
    if (name.starts_with(prefix)) out[name] = folder;
  return out;
}

TEST(RunFolders, LaunchAndLogsAgreeOnEveryRecordedRun) {
  const auto folders = run_folders();
  ASSERT_GE(folders.size(), 8u) << "the recorded run folders are missing";
  for (const auto& [name, folder] : folders) {
    RunRecords run = take_attempt_records({folder});
    ASSERT_FALSE(run.attempts.empty()) << name << ": no attempt record";
    EXPECT_TRUE(run.errors.empty()) << name;
    const auto launched = launch::build_launch_report(run.attempts).findings;
    ASSERT_FALSE(launched.empty()) << name;
    logs::LogsOptions opt;
    opt.paths = run.other_paths;
    const auto& cat = logs::Catalogue::builtin();
    const auto alone = logs::logs_findings(logs::analyze_logs(opt, cat), cat);
    const report::Finding& lead = launched.front();
    for (const auto& f : alone) {
      if (f.severity != report::Severity::fail || f.rank < 0) continue;
      if (lead.rank >= 0) {
        EXPECT_EQ(f.rank, lead.rank) << name << ": launch names rank " << lead.rank << " (" << lead.id
                                     << "), the logs alone " << f.id << ": " << f.title;
      }
      break;
    }
  }
}

TEST(RunFolders, TheRankThatIsDifferentIsNamedFirst) {
  const auto folders = run_folders();
  const std::map<std::string, Lead> want = {
      {"h200x1_gloo_different/exit0", {"launch.rank.left_early", 1}},
      {"h200x1_gloo_different/late_init", {"launch.hang", 1}},
      {"h200x1_gloo_different/oom", {"launch.rank.failed", 1}},  // and the other process in its title
      {"h200x1_gloo_different/healthy", {"launch.job.ok", -1}},
  };
  for (const auto& [name, lead] : want) {
    ASSERT_TRUE(folders.count(name)) << name;
    const auto f = launch::build_launch_report(take_attempt_records({folders.at(name)}).attempts).findings;
    ASSERT_FALSE(f.empty()) << name;
    EXPECT_EQ(f.front().id, lead.id) << name << ": " << f.front().title;
    EXPECT_EQ(f.front().rank, lead.rank) << name << ": " << f.front().title;
  }
  const auto oom =
      launch::build_launch_report(take_attempt_records({folders.at("h200x1_gloo_different/oom")}).attempts);
  EXPECT_NE(oom.findings.front().title.find("rank 1 ran out of GPU memory: process "), std::string::npos)
      << oom.findings.front().title;
  EXPECT_NE(oom.findings.front().title.find("not part of this job"), std::string::npos)
      << oom.findings.front().title;
  // The healthy runs whose one rank differs: ok, and the odd rank warned about.
  for (const auto& [name, rank] : std::map<std::string, int>{{"h200x1_gloo_different/other_nccl", 1},
                                                             {"h200x1_gloo_different/proto_ll", 3},
                                                             {"h200x1_gloo_different/p2p_off", 1}}) {
    const auto f = launch::build_launch_report(take_attempt_records({folders.at(name)}).attempts).findings;
    ASSERT_GE(f.size(), 2u) << name;
    EXPECT_EQ(f[0].id, "launch.job.ok") << name;
    EXPECT_EQ(f[1].id, "launch.rank.differs") << name;
    EXPECT_EQ(f[1].rank, rank) << name << ": " << f[1].title;
  }
  const auto healthy = launch::build_launch_report(
      take_attempt_records({folders.at("h200x1_gloo_different/healthy")}).attempts);
  for (const auto& f : healthy.findings)
    EXPECT_LT(f.severity, report::Severity::warn) << f.id << ": " << f.title;
}

// The straggler runs (2x H200): launch's report of each names rank 1 after launch.job.ok, from the node
// digests saved in attempt.json; `logs` on the folder says it once (its own reading of the same dumps is
// not repeated); the healthy run of two minutes names nobody.
TEST(RunFolders, TheRankTheOthersWaitedForIsNamedOnce) {
  const auto folders = run_folders_of("h200x2_stragglers/");
  ASSERT_EQ(folders.size(), 4u) << "the recorded straggler runs are missing";
  const auto& cat = logs::Catalogue::builtin();
  for (const auto& [name, folder] : folders) {
    RunRecords run = take_attempt_records({folder});
    const auto launched = launch::build_launch_report(run.attempts).findings;
    ASSERT_FALSE(launched.empty()) << name;
    EXPECT_EQ(launched[0].id, "launch.job.ok") << name;
    logs::LogsOptions opt;
    opt.paths = run.other_paths;
    const auto read = logs::logs_findings(logs::analyze_logs(opt, cat), cat);
    const auto all = run_findings(launched, read);
    size_t launch_says = 0, logs_says = 0, logs_alone = 0;
    for (const auto& f : all) {
      launch_says += f.id == "launch.job.straggler" && f.rank == 1;
      logs_says += f.id == "logs.fr.straggler";
    }
    for (const auto& f : read) logs_alone += f.id == "logs.fr.straggler" && f.rank == 1;
    const bool slow = name.find("healthy") == std::string::npos;
    EXPECT_EQ(launch_says, slow ? 1u : 0u) << name;
    EXPECT_EQ(logs_alone, slow ? 1u : 0u) << name << ": the logs alone name it too";
    EXPECT_EQ(logs_says, 0u) << name << ": said twice";
  }
}

TEST(RunFolders, AnotherProgramsAttemptJsonIsReadAsALog) {
  test_files::ScratchDir scratch;
  const std::string dir = scratch.path.string();
  { std::ofstream(dir + "/attempt.json") << "{\"attempt\": 3}\n"; }
  RunRecords run = take_attempt_records({dir});
  EXPECT_TRUE(run.attempts.empty());
  EXPECT_EQ(run.errors.size(), 1u);
  EXPECT_EQ(run.other_paths, std::vector<std::string>{dir}) << "nothing of launch's: the inputs as given";
}

}  // namespace
}  // namespace dd::cli
