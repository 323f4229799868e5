// The limits of one `logs` run hold across its files and threads: processes and PyTorch watchdog records over
// all inputs (a cap per file let twenty files keep 1.3 million processes), said in a finding that names the
// files.
#include "logs/run_budget.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "logs/analyze.h"

namespace dd::logs {
namespace {

// `count` NCCL processes (host hostF, pids 1..count), one INFO line each.
void write_processes(const std::filesystem::path& path, int file, int count) {
  std::ofstream out(path);
  for (int pid = 1; pid <= count; ++pid)
    out << "host" << file << ":" << pid << ":" << pid << " [0] NCCL INFO cudaDriverVersion 12080\n";
}

TEST(RunBudget, ProcessesAreCappedAcrossFilesAndThreads) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "dd_run_budget_procs";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const int files = 3, per_file = 30000;  // 90,000 in all, each file under the old per-file cap
  for (int f = 0; f < files; ++f) write_processes(dir / ("rank" + std::to_string(f) + ".log"), f, per_file);
  LogsOptions opt;
  opt.paths = {dir.string()};
  opt.jobs = files;
  LogsResult r = analyze_logs(opt, Catalogue::builtin());
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.files.size(), size_t(files));
  const size_t cap = 65536;
  EXPECT_LE(r.processes.size(), cap + files) << "one run kept more than its cap";
  EXPECT_GE(r.processes.size(), cap);
  const report::Finding* capped = nullptr;
  auto findings = logs_findings(r, Catalogue::builtin());
  for (const auto& f : findings)
    if (f.id == "logs.input.capped") capped = &f;
  ASSERT_NE(capped, nullptr) << "reaching the cap is said";
  ASSERT_FALSE(capped->evidence.empty());
  EXPECT_NE(capped->evidence[0].find("65536 processes"), std::string::npos) << capped->evidence[0];
}

// `count` PyTorch watchdog timeouts, of ranks first..first+count-1 (rank_step 1) or all of rank `first`.
void write_watchdogs(const std::filesystem::path& path, int first, int count, int rank_step) {
  std::ofstream out(path);
  for (int i = 0; i < count; ++i) {
    const int rank = first + i * rank_step;
    out << "[rank" << rank << "]:[E1127 00:28:17.968156087 ProcessGroupNCCL.cpp:689] [Rank " << rank
        << "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=" << i
        << ", OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=10000) ran for 10050 "
           "milliseconds before timing out.\n";
  }
}

const report::Finding* finding(const std::vector<report::Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(RunBudget, WatchdogRecordsAreCappedPerRankAndAcrossFiles) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "dd_run_budget_watchdogs";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (int f = 0; f < 3; ++f)  // 90,000 ranks' timeouts: each file under the per-file cap, not all together
    write_watchdogs(dir / ("rank" + std::to_string(f) + ".log"), f * 30000, 30000, 1);
  LogsOptions opt;
  opt.paths = {dir.string()};
  opt.jobs = 3;
  LogsResult r = analyze_logs(opt, Catalogue::builtin());
  EXPECT_EQ(r.watchdogs.size(), 65536u) << "one run kept more (or fewer) watchdog records than its cap";
  auto findings = logs_findings(r, Catalogue::builtin());
  const report::Finding* capped = finding(findings, "logs.input.capped");
  ASSERT_NE(capped, nullptr) << "reaching the cap is said";
  ASSERT_FALSE(capped->evidence.empty());
  EXPECT_NE(capped->evidence[0].find("watchdog records than the limit for all files together"),
            std::string::npos)
      << capped->evidence[0];

  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_watchdogs(dir / "rank1.log", 1, 3000, 0);  // one rank timing out 3,000 times in one file
  r = analyze_logs(opt, Catalogue::builtin());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.watchdogs.size(), 1024u);
  findings = logs_findings(r, Catalogue::builtin());
  capped = finding(findings, "logs.input.capped");
  ASSERT_NE(capped, nullptr);
  EXPECT_NE(capped->evidence[0].find("per rank in one file (line 1025 and later left out)"),
            std::string::npos)
      << capped->evidence[0];
  const report::Finding* summary = finding(findings, "logs.pytorch.watchdog_summary");
  ASSERT_NE(summary, nullptr);
  EXPECT_NE(summary->title.find("1 rank(s) hit the ProcessGroupNCCL watchdog (1024 timeouts)"),
            std::string::npos)
      << summary->title;
}

TEST(RunBudget, SharedCountNeverPassesItsCap) {
  SharedCount c(10);
  EXPECT_TRUE(c.take(7));
  EXPECT_FALSE(c.take(4));
  EXPECT_TRUE(c.reached());
  EXPECT_EQ(c.used(), 7u);
  EXPECT_TRUE(c.take(3));
  EXPECT_FALSE(c.take());
  EXPECT_TRUE(c.reached());
  EXPECT_EQ(c.used(), 10u);
}

}  // namespace
}  // namespace dd::logs
