// Tests of the hang finding: the stuck rank named by collective count or by idleness, each rank's /proc
// state, last line and stack, and the exit code 124.
#include <gtest/gtest.h>

#include "launch/failure_report.h"
#include "launch/report_test_util.h"

namespace dd::launch {
namespace {

// Four ranks on one node, all alive and silent for 60 s; ranks 0, 2, 3 spin in NCCL (high CPU).
AttemptRecord hung_attempt() {
  AttemptRecord a;
  a.duration_s = 75;
  a.stop.cause = StopCause::hang;
  a.stop.detail = "no output and no CPU for 60 s";
  NodeRecord node;
  node.node_rank = 0;
  node.host = "gpu-a";
  for (int r = 0; r < 4; ++r) {
    RankRecord rec;
    rec.rank = r, rec.local_rank = r, rec.node_rank = 0, rec.pid = 500 + r;
    rec.running = true;
    rec.proc_state = "R (running)";
    rec.wchan = "0";
    rec.cpu_s = 80;
    rec.cpu_window_s = 59.5;
    rec.silent_s = 60;
    rec.tail = {"step " + std::to_string(100) + " all_reduce"};
    rec.stack_error = "py-spy not on PATH";
    node.ranks.push_back(rec);
  }
  a.nodes.push_back(node);
  return a;
}

TEST(LaunchHang, IdleRankNamedWhenNoCounts) {
  auto a = hung_attempt();
  RankRecord& r1 = a.nodes[0].ranks[1];
  r1.proc_state = "S (sleeping)", r1.wchan = "hrtimer_nanosleep", r1.cpu_window_s = 0.01;
  r1.tail = {"about to sleep", ""};
  const auto r = build_launch_report({a});
  ASSERT_FALSE(r.findings.empty());
  const auto& f = r.findings[0];
  EXPECT_EQ(f.id, "launch.hang");
  EXPECT_EQ(f.severity, report::Severity::fail);
  EXPECT_NE(f.title.find("rank 1 is idle (under 2% CPU"), std::string::npos) << f.title;
  EXPECT_EQ(f.rank, 1);
  EXPECT_EQ(f.node, "gpu-a");
  const std::string ev = all_evidence(f);
  EXPECT_NE(
      ev.find("rank 1 (local rank 1) on node 0 (gpu-a): state S (sleeping), waiting in hrtimer_nanosleep, "
              "0.01 s CPU in the last 60.0 s (80.00 s in all), silent 60.0 s; last line: \"about to sleep\""),
      std::string::npos)
      << ev;
  EXPECT_NE(ev.find("rank 1 stack: not taken (py-spy not on PATH)"), std::string::npos);
  EXPECT_NE(f.fix.find("pip install py-spy"), std::string::npos);
  EXPECT_EQ(launch_exit_code(a), 124);
}

TEST(LaunchHang, BehindByCollectiveCount) {
  auto a = hung_attempt();
  for (auto& rec : a.nodes[0].ranks) rec.collectives = rec.rank == 3 ? 1199 : 1200;
  a.nodes[0].ranks[3].stack =
      "Thread 7 (idle): \"MainThread\"\n    load (data.py:40)\n    step (train.py:12)";
  const auto f = build_launch_report({a}).findings.at(0);
  EXPECT_NE(f.title.find("rank 3 is behind: 1199 collectives, the others up to 1200"),
            std::string::npos)
      << f.title;
  const std::string ev = all_evidence(f);
  EXPECT_NE(ev.find("1199 collectives (behind)"), std::string::npos);
  EXPECT_NE(ev.find("1200 collectives (ahead)"), std::string::npos);
  EXPECT_NE(
      ev.find("rank 3 stack (py-spy dump):\n| Thread 7 (idle): \"MainThread\"\n|     load (data.py:40)"),
      std::string::npos)
      << ev;
}

TEST(LaunchHang, NothingStandsOut) {
  auto a = hung_attempt();
  for (auto& rec : a.nodes[0].ranks) rec.collectives = 50;  // equal counts, all busy
  const auto f = build_launch_report({a}).findings.at(0);
  EXPECT_NE(f.title.find("every rank alive but silent for 60 s; none stands out"), std::string::npos)
      << f.title;
  EXPECT_EQ(f.rank, -1);
  EXPECT_EQ(all_evidence(f).find("(behind)"), std::string::npos);
}

TEST(LaunchHang, AttemptLineNamesStuckRanks) {
  auto a = hung_attempt();
  a.nodes[0].ranks[1].cpu_window_s = 0;
  a.nodes[0].ranks[2].cpu_window_s = 0.1;
  AttemptRecord ok;
  ok.attempt = 1;
  const auto r = build_launch_report({a, ok});
  EXPECT_EQ(r.findings.back().title, "attempt 0: the job hung (ranks 1,2 look stuck) after 75.0 s");
}

}  // namespace
}  // namespace dd::launch
