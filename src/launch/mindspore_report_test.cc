// Tests of MindSpore's scheduler in the launch report: a scheduler that fails first is the cause (not a
// rank), its status is the exit code, a rank that failed earlier still wins, and after a good job a scheduler
// that exits 0 says nothing while one that had to be stopped is a warning.
#include <gtest/gtest.h>

#include "launch/attempt.h"
#include "launch/report_test_util.h"

namespace dd::launch {
namespace {

RankRecord scheduler(int exit_code, int64_t end_wall_ms) {
  RankRecord s;
  s.node_rank = 0;
  s.pid = 4242;
  s.exit_code = exit_code;
  s.end_s = 1.5;
  s.end_wall_ms = end_wall_ms;
  s.log_path = "logs/j/0/node0.scheduler.log";
  s.tail = {"[ERROR] MS_SCHED_PORT 29500 is occupied"};
  return s;
}

// Two nodes of 4 workers that launch stopped after the scheduler exited 3.
AttemptRecord scheduler_failed_attempt() {
  AttemptRecord a = failed_attempt();
  for (auto& n : a.nodes)
    for (auto& r : n.ranks) r.stopped_by_us = true, r.signal = 15, r.exit_code = -1;
  a.nodes[0].scheduler = scheduler(3, 9000);
  a.stop = {};
  a.stop.cause = StopCause::scheduler_failed;
  a.stop.node_rank = 0;
  a.stop.root = a.nodes[0].scheduler;
  return a;
}

TEST(LaunchMindSporeReport, FailedSchedulerIsTheCauseNotARank) {
  AttemptRecord a = scheduler_failed_attempt();
  settle_root_cause(a);
  EXPECT_EQ(a.stop.cause, StopCause::scheduler_failed);
  const auto r = build_launch_report({a});
  ASSERT_FALSE(r.findings.empty());
  const auto& f = r.findings.front();
  EXPECT_EQ(f.id, "launch.mindspore.scheduler");
  EXPECT_EQ(f.severity, report::Severity::fail);
  EXPECT_EQ(f.rank, -1);
  EXPECT_NE(f.title.find("MindSpore's scheduler on node 0 (gpu-a) exited with status 3"), std::string::npos)
      << f.title;
  const std::string ev = all_evidence(f);
  EXPECT_NE(ev.find("log: logs/j/0/node0.scheduler.log"), std::string::npos) << ev;
  EXPECT_NE(ev.find("| [ERROR] MS_SCHED_PORT 29500 is occupied"), std::string::npos) << ev;
  EXPECT_EQ(find_id(r, "launch.rank.failed"), nullptr);
  const auto* stopped = find_id(r, "launch.rank.stopped");
  ASSERT_NE(stopped, nullptr);
  EXPECT_NE(stopped->title.find("after MindSpore's scheduler failed"), std::string::npos) << stopped->title;
  EXPECT_EQ(launch_exit_code(a), kExitJobFailed);  // the scheduler's status is the job's, not launch's
  EXPECT_EQ(worker_exit_code(a), 3);
  a.stop.root.exit_code = -1, a.stop.root.signal = 9;
  EXPECT_EQ(launch_exit_code(a), kExitJobFailed);
  EXPECT_EQ(worker_exit_code(a), 137);
}

TEST(LaunchMindSporeReport, EarlierRankFailureWinsOverTheScheduler) {
  AttemptRecord a = scheduler_failed_attempt();
  RankRecord& r5 = a.nodes[1].ranks[1];
  r5.stopped_by_us = false, r5.signal = 0, r5.exit_code = 1, r5.end_wall_ms = 8000;
  settle_root_cause(a);
  EXPECT_EQ(a.stop.cause, StopCause::worker_failed);
  EXPECT_EQ(a.stop.rank, 5);
  // And the other way round: a worker's stop, the scheduler failed before it.
  AttemptRecord b = failed_attempt();  // rank 2 exited 7 at 10000
  b.nodes[0].scheduler = scheduler(1, 9500);
  settle_root_cause(b);
  EXPECT_EQ(b.stop.cause, StopCause::scheduler_failed);
  EXPECT_EQ(b.stop.root.pid, 4242);
}

TEST(LaunchMindSporeReport, AfterAGoodJobOnlyABadEndIsMentioned) {
  AttemptRecord a;
  NodeRecord n;
  n.node_rank = 0;
  n.ranks = {rank_rec(0, 0, 0), rank_rec(1, 1, 0)};
  n.scheduler = scheduler(0, 9000);
  a.nodes = {n};
  auto r = build_launch_report({a});
  EXPECT_NE(find_id(r, "launch.job.ok"), nullptr);
  EXPECT_EQ(find_id(r, "launch.mindspore.scheduler"), nullptr);
  EXPECT_EQ(launch_exit_code(a), 0);
  a.nodes[0].scheduler.stopped_by_us = true, a.nodes[0].scheduler.signal = 15;
  r = build_launch_report({a});
  const auto* f = find_id(r, "launch.mindspore.scheduler");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, report::Severity::warn);
  EXPECT_NE(f->title.find("launch stopped it"), std::string::npos) << f->title;
  EXPECT_EQ(launch_exit_code(a), 0);
}

TEST(LaunchMindSporeReport, SchedulerRecordRoundTripsAndIsOptional) {
  NodeRecord n;
  n.node_rank = 0;
  EXPECT_FALSE(nlohmann::json(n).contains("scheduler"));
  n.scheduler = scheduler(3, 9000);
  const NodeRecord back = nlohmann::json(n).get<NodeRecord>();
  EXPECT_EQ(back.scheduler.pid, 4242);
  EXPECT_EQ(back.scheduler.exit_code, 3);
  EXPECT_EQ(back.scheduler.log_path, "logs/j/0/node0.scheduler.log");
  EXPECT_EQ(stop_cause_from_name(stop_cause_name(StopCause::scheduler_failed)), StopCause::scheduler_failed);
}

}  // namespace
}  // namespace dd::launch
