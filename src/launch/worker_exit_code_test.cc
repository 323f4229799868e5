// launch's exit code never is a worker's: a worker that exits 2 makes launch exit kExitJobFailed (4), not 2
// (which reads as "the preflight stopped the job"); the worker's own code is worker_exit_code, and a command
// that could not be started is said as a shell says it.
#include <gtest/gtest.h>

#include "launch/failure_report.h"
#include "launch/report_test_util.h"

namespace dd::launch {
namespace {

TEST(LaunchExitCode, AWorkersCodeIsNeverLaunchsOwn) {
  auto a = failed_attempt();
  a.stop.root.exit_code = 2;
  a.nodes[0].ranks[2].exit_code = 2;
  EXPECT_EQ(launch_exit_code(a), kExitJobFailed);
  EXPECT_NE(launch_exit_code(a), report::kExitFail);
  EXPECT_EQ(worker_exit_code(a), 2);
  a.stop.root.exit_code = -1, a.stop.root.signal = 11;
  EXPECT_EQ(launch_exit_code(a), kExitJobFailed);
  EXPECT_EQ(worker_exit_code(a), 128 + 11);
}

TEST(LaunchExitCode, NoWorkerCodeWhenTheJobEndedOtherwise) {
  auto a = failed_attempt();
  a.stop = StopEvent{.cause = StopCause::hang};
  EXPECT_EQ(launch_exit_code(a), kExitHang);
  EXPECT_FALSE(worker_exit_code(a).has_value());
  a.stop = StopEvent{.cause = StopCause::node_lost, .node_rank = 0};
  EXPECT_EQ(launch_exit_code(a), report::kExitFail);
  EXPECT_FALSE(worker_exit_code(a).has_value());
  a.stop = StopEvent{};
  EXPECT_EQ(launch_exit_code(a), report::kExitPass);
  EXPECT_EQ(worker_exit_code(a), 0);
}

TEST(LaunchExitCode, ACommandNotFoundIsSaidSo) {
  auto a = failed_attempt();
  RankRecord& root = a.stop.root;
  root.exit_code = 127, root.start_error = "command not found: pyhton3", root.traceback.clear();
  root.tail = {"cannot run pyhton3: No such file or directory"};
  a.nodes[0].ranks[2] = root;
  const auto r = build_launch_report({a});
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings[0].id, "launch.rank.failed");
  EXPECT_NE(r.findings[0].title.find("could not be started: command not found: pyhton3"), std::string::npos)
      << r.findings[0].title;
  EXPECT_EQ(r.findings[0].title.find("exited with status 127"), std::string::npos) << r.findings[0].title;
  EXPECT_NE(r.findings[0].fix.find("Check the command after --"), std::string::npos) << r.findings[0].fix;
  EXPECT_EQ(worker_exit_code(a), 127);
  nlohmann::json j = root;  // kept in attempt.json, so `distdoctor logs` says it the same way
  EXPECT_EQ(j.get<RankRecord>().start_error, "command not found: pyhton3");
}

}  // namespace
}  // namespace dd::launch
