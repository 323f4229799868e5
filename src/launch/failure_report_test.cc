// Tests of the launch report: the root-cause finding and its evidence, the diagnosis, also-failed and stopped
// ranks and the env that differs across nodes (failure_report_outcomes_test.cc: the other outcomes).
#include "launch/failure_report.h"

#include <gtest/gtest.h>

#include "launch/report_test_util.h"

namespace dd::launch {
namespace {

TEST(LaunchReport, RootCauseNamedWithEverythingAUserNeeds) {
  const auto r = build_launch_report({failed_attempt()});
  EXPECT_EQ(r.title, "distdoctor launch");
  ASSERT_FALSE(r.findings.empty());
  const auto& f = r.findings.front();
  EXPECT_EQ(f.id, "launch.rank.failed");
  EXPECT_EQ(f.severity, report::Severity::fail);
  EXPECT_EQ(f.rank, 2);
  EXPECT_EQ(f.node, "gpu-a");
  EXPECT_EQ(f.title.rfind("rank 2 (local rank 2) on node 0 (gpu-a) exited with status 7", 0), 0u) << f.title;
  EXPECT_NE(f.title.find("ValueError: bad shape"), std::string::npos);
  const std::string ev = all_evidence(f);
  EXPECT_NE(ev.find("the first rank to fail, 3.00 s after the start; 1 more failed"), std::string::npos)
      << ev;
  EXPECT_NE(ev.find("command: python train.py --hf-token <redacted> --lr 0.1"), std::string::npos) << ev;
  EXPECT_EQ(ev.find("hf_secret"), std::string::npos);
  EXPECT_NE(ev.find("log: logs/j/0/0.2.log on gpu-a"), std::string::npos);
  EXPECT_NE(ev.find("| ValueError: bad shape"), std::string::npos);
  EXPECT_NE(ev.find("| step 1 loss 2.0"), std::string::npos);
  EXPECT_EQ(ev.find("ValueError: bad shape"), ev.rfind("ValueError: bad shape"));  // tail does not repeat it
  EXPECT_NE(f.fix.find("Read the full log at logs/j/0/0.2.log on gpu-a"), std::string::npos) << f.fix;
  EXPECT_EQ(launch_exit_code(failed_attempt()), kExitJobFailed);
  EXPECT_EQ(worker_exit_code(failed_attempt()), 7);
}

TEST(LaunchReport, DiagnosisFollowsTheRootCauseAndGivesTheFix) {
  auto a = failed_attempt();
  a.stop.diagnosis.push_back({.id = "known.nccl.remote_exit",
                              .severity = report::Severity::fail,
                              .title = "a peer exited",
                              .fix = "look at the peer"});
  const auto r = build_launch_report({a});
  ASSERT_GE(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[1].id, "known.nccl.remote_exit");
  EXPECT_EQ(r.findings[1].rank, 2);
  EXPECT_EQ(r.findings[1].node, "gpu-a");
  EXPECT_EQ(r.findings[0].fix.rfind("look at the peer", 0), 0u) << r.findings[0].fix;
}

TEST(LaunchReport, SignalDeathNamedAndExitCode) {
  auto a = failed_attempt();
  RankRecord& root = a.nodes[0].ranks[2];
  root.exit_code = -1, root.signal = 9, root.tail.clear(), root.traceback.clear();
  a.stop.root = root;
  const auto r = build_launch_report({a});
  EXPECT_NE(r.findings[0].title.find("killed by signal 9 (SIGKILL)"), std::string::npos)
      << r.findings[0].title;
  EXPECT_NE(r.findings[0].fix.find("OOM killer"), std::string::npos);
  EXPECT_NE(all_evidence(r.findings[0]).find("its log is empty"), std::string::npos);
  EXPECT_EQ(launch_exit_code(a), kExitJobFailed);
  EXPECT_EQ(worker_exit_code(a), 137);
}

TEST(LaunchReport, HintsFromTheWayItEnded) {
  auto a = failed_attempt();
  a.stop.root.traceback.clear();
  a.stop.root.exit_code = -1, a.stop.root.signal = 11;
  EXPECT_NE(build_launch_report({a}).findings[0].fix.find("PYTHONFAULTHANDLER=1"), std::string::npos);
  EXPECT_EQ(launch_exit_code(a), kExitJobFailed);
  EXPECT_EQ(worker_exit_code(a), 139);
  a.stop.root.exit_code = 143, a.stop.root.signal = 0;
  EXPECT_NE(
      build_launch_report({a}).findings[0].fix.find("Status 143 is what a shell reports for a child killed "
                                                    "by SIGTERM"),
      std::string::npos);
  EXPECT_EQ(launch_exit_code(a), kExitJobFailed);
  EXPECT_EQ(worker_exit_code(a), 143);
}

TEST(LaunchReport, RootFoundInNodeRecordsWhenStopEventHasNone) {
  auto a = failed_attempt();
  a.stop.root = RankRecord{};
  const auto r = build_launch_report({a});
  EXPECT_EQ(r.findings[0].title.rfind("rank 2 (local rank 2) on node 0 (gpu-a) exited with status 7", 0), 0u);
  EXPECT_EQ(launch_exit_code(a), kExitJobFailed);
  EXPECT_EQ(worker_exit_code(a), 7);
}

TEST(LaunchReport, AlsoFailedAndStoppedRanks) {
  const auto r = build_launch_report({failed_attempt()});
  const auto* also = find_id(r, "launch.rank.also_failed");
  ASSERT_NE(also, nullptr);
  EXPECT_EQ(also->severity, report::Severity::warn);
  EXPECT_NE(also->title.find("1 more rank failed on its own after rank 2: 5"), std::string::npos)
      << also->title;
  EXPECT_NE(all_evidence(*also).find("rank 5 (local rank 1) on node 1 (gpu-b) exited with status 1, +0.30 s"),
            std::string::npos)
      << all_evidence(*also);
  const auto* stopped = find_id(r, "launch.rank.stopped");
  ASSERT_NE(stopped, nullptr);
  EXPECT_EQ(stopped->severity, report::Severity::info);
  EXPECT_NE(stopped->title.find("launch stopped 6 ranks after rank 2 failed"), std::string::npos);
  EXPECT_NE(stopped->title.find("node 0 (gpu-a): ranks 0,1,3; node 1 (gpu-b): ranks 4,6,7"),
            std::string::npos)
      << stopped->title;
}

TEST(LaunchReport, EnvDiffersAcrossNodes) {
  auto a = failed_attempt();
  a.nodes[1].env["HOSTNAME"] = "gpu-b";  // differs by design: not reported
  a.nodes[1].env["WANDB_API_KEY"] = "<redacted>";
  const auto r = build_launch_report({a});
  const auto* f = find_id(r, "launch.env.differs");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, report::Severity::warn);
  EXPECT_NE(f->title.find("3 environment variables differ between node 0 (gpu-a)"), std::string::npos)
      << f->title;
  const std::string ev = all_evidence(*f);
  EXPECT_NE(ev.find("NCCL_SOCKET_IFNAME: node 0 (gpu-a) \"eth0\"; node 1 (gpu-b) \"ens3\""),
            std::string::npos)
      << ev;
  EXPECT_NE(ev.find("NCCL_DEBUG: node 0 (gpu-a) unset; node 1 (gpu-b) \"INFO\""), std::string::npos) << ev;
  EXPECT_EQ(ev.find("HOSTNAME"), std::string::npos);
  EXPECT_EQ(ev.find("PATH"), std::string::npos);

  a.nodes.pop_back();  // one node: nothing to compare
  const auto one_node = build_launch_report({a});
  EXPECT_EQ(find_id(one_node, "launch.env.differs"), nullptr);
}

}  // namespace
}  // namespace dd::launch
