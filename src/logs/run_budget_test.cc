// The limits of one `logs` run hold across its files and threads: processes over all inputs (a cap per file
// let twenty files keep 1.3 million), said in a finding that names the files.
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
