// Tests of the launch report: the root-cause finding and its evidence, the diagnosis, also-failed and stopped
// ranks, lost nodes, interrupts, success, earlier attempts, exit codes, and a doc for every id.
#include "launch/failure_report.h"

#include <gtest/gtest.h>

#include <set>

namespace dd::launch {
namespace {

RankRecord rank_rec(int rank, int local, int node) {
  RankRecord r;
  r.rank = rank, r.local_rank = local, r.node_rank = node;
  r.pid = 1000 + rank;
  r.exit_code = 0;
  r.end_s = 5;
  r.log_path = "logs/j/0/" + std::to_string(node) + "." + std::to_string(rank) + ".log";
  return r;
}

// Two nodes of 4 workers; rank 2 (node 0) exits 7 first, rank 5 dies on its own, the rest are stopped.
AttemptRecord failed_attempt() {
  AttemptRecord a;
  a.command = {"python", "train.py", "--hf-token", "hf_secret", "--lr", "0.1"};
  a.duration_s = 3.1;
  a.stop_latency_s = 0.12;
  for (int n = 0; n < 2; ++n) {
    NodeRecord node;
    node.node_rank = n;
    node.host = n == 0 ? "gpu-a" : "gpu-b";
    for (int l = 0; l < 4; ++l) {
      RankRecord r = rank_rec(n * 4 + l, l, n);
      r.stopped_by_us = true;
      r.signal = 15;
      node.ranks.push_back(r);
    }
    node.env = {{"PATH", "/usr/bin"}, {"NCCL_SOCKET_IFNAME", n == 0 ? "eth0" : "ens3"}};
    a.nodes.push_back(node);
  }
  a.nodes[1].env["NCCL_DEBUG"] = "INFO";
  RankRecord& root = a.nodes[0].ranks[2];
  root.stopped_by_us = false, root.signal = 0, root.exit_code = 7, root.end_s = 3.0, root.end_wall_ms = 10000;
  root.tail = {"step 1 loss 2.0",
               "Traceback (most recent call last):", "  File \"train.py\", line 9, in <module>",
               "ValueError: bad shape"};
  root.traceback =
      "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\nValueError: bad shape";
  RankRecord& also = a.nodes[1].ranks[1];  // rank 5
  also.stopped_by_us = false, also.signal = 0, also.exit_code = 1, also.end_wall_ms = 10300;
  a.stop.cause = StopCause::worker_failed;
  a.stop.rank = 2;
  a.stop.node_rank = 0;
  a.stop.root = root;
  return a;
}

const report::Finding* find_id(const report::Report& r, const std::string& id) {
  for (const auto& f : r.findings)
    if (f.id == id) return &f;
  return nullptr;
}
// The pointer would outlive a temporary report (ASan: heap-use-after-free): keep the report in a variable.
const report::Finding* find_id(report::Report&& r, const std::string& id) = delete;

std::string all_evidence(const report::Finding& f) {
  std::string s;
  for (const auto& e : f.evidence) s += e + "\n";
  return s;
}

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
  EXPECT_EQ(launch_exit_code(failed_attempt()), 7);
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
  EXPECT_EQ(launch_exit_code(a), 137);
}

TEST(LaunchReport, HintsFromTheWayItEnded) {
  auto a = failed_attempt();
  a.stop.root.traceback.clear();
  a.stop.root.exit_code = -1, a.stop.root.signal = 11;
  EXPECT_NE(build_launch_report({a}).findings[0].fix.find("PYTHONFAULTHANDLER=1"), std::string::npos);
  EXPECT_EQ(launch_exit_code(a), 139);
  a.stop.root.exit_code = 143, a.stop.root.signal = 0;
  EXPECT_NE(
      build_launch_report({a}).findings[0].fix.find("Status 143 is what a shell reports for a child killed "
                                                    "by SIGTERM"),
      std::string::npos);
  EXPECT_EQ(launch_exit_code(a), 143);
}

TEST(LaunchReport, RootFoundInNodeRecordsWhenStopEventHasNone) {
  auto a = failed_attempt();
  a.stop.root = RankRecord{};
  const auto r = build_launch_report({a});
  EXPECT_EQ(r.findings[0].title.rfind("rank 2 (local rank 2) on node 0 (gpu-a) exited with status 7", 0), 0u);
  EXPECT_EQ(launch_exit_code(a), 7);
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
  EXPECT_NE(stopped->title.find("node 0 (gpu-a): 0,1,3; node 1 (gpu-b): 4,6,7"), std::string::npos)
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

TEST(LaunchReport, JobOkAndEarlierAttempts) {
  AttemptRecord ok;
  ok.attempt = 1;
  ok.duration_s = 12;
  for (int n = 0; n < 2; ++n) {
    NodeRecord node;
    node.node_rank = n;
    node.ranks = {rank_rec(2 * n, 0, n), rank_rec(2 * n + 1, 1, n)};
    ok.nodes.push_back(node);
  }
  auto first = failed_attempt();
  const auto r = build_launch_report({first, ok});
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].id, "launch.job.ok");
  EXPECT_EQ(r.findings[0].severity, report::Severity::ok);
  EXPECT_EQ(r.findings[0].title.rfind("all 4 workers on 2 nodes exited 0", 0), 0u) << r.findings[0].title;
  EXPECT_EQ(r.findings[1].id, "launch.attempt.failed");
  EXPECT_EQ(r.findings[1].title, "attempt 0: rank 2 exited with status 7 after 3.1 s");
  EXPECT_EQ(r.exit_code(), report::kExitPass);
  EXPECT_EQ(launch_exit_code(ok), 0);
  EXPECT_TRUE(build_launch_report({}).findings.empty());
}

TEST(LaunchReport, LostNodeAndMaster) {
  auto a = failed_attempt();
  a.stop = StopEvent{.cause = StopCause::node_lost, .node_rank = 0, .detail = "no heartbeat for 5.0 s"};
  a.silent_nodes = {1};
  auto r = build_launch_report({a});
  EXPECT_EQ(r.findings[0].id, "launch.node.lost");
  EXPECT_EQ(r.findings[0].title, "node 1 (gpu-b) stopped answering: no heartbeat for 5.0 s");
  const auto* silent = find_id(r, "launch.node.silent");
  ASSERT_NE(silent, nullptr);
  EXPECT_NE(silent->title.find("no record from node 1 (gpu-b)"), std::string::npos);
  EXPECT_EQ(launch_exit_code(a), report::kExitFail);
  a.stop.cause = StopCause::master_lost;
  r = build_launch_report({a});
  EXPECT_EQ(r.findings[0].id, "launch.master.lost");
  EXPECT_EQ(r.findings[0].severity, report::Severity::fail);
  EXPECT_EQ(launch_exit_code(a), report::kExitFail);
}

TEST(LaunchReport, InterruptExitCodesFromTheSignalName) {
  auto a = failed_attempt();
  a.stop = StopEvent{.cause = StopCause::interrupted, .node_rank = 1, .detail = "SIGINT"};
  const auto r = build_launch_report({a});
  EXPECT_EQ(r.findings[0].id, "launch.interrupted");
  EXPECT_NE(r.findings[0].title.find("interrupted by SIGINT on node 1 (gpu-b)"), std::string::npos);
  EXPECT_EQ(launch_exit_code(a), 130);
  a.stop.detail = "received SIGTERM from the scheduler";
  EXPECT_EQ(launch_exit_code(a), 143);
  a.stop.detail = "SIGHUP";
  EXPECT_EQ(launch_exit_code(a), 129);
  a.stop.detail = "received signal 15";
  EXPECT_EQ(launch_exit_code(a), 143);
  a.stop.detail = "";
  EXPECT_EQ(launch_exit_code(a), 130);
}

TEST(LaunchReport, TailLinesAsTheTerminalShowedThem) {
  auto a = failed_attempt();
  RankRecord& root = a.stop.root;
  root.traceback.clear();
  root.tail = {"epoch 1:  10%|#   |\repoch 1:  50%|#####  |\r", std::string(5000, 'x'), "export API_KEY=abc"};
  for (int i = 29; i >= 0; --i) root.tail.insert(root.tail.begin(), "old line " + std::to_string(i));
  const std::string ev = all_evidence(build_launch_report({a}).findings.at(0));
  EXPECT_NE(ev.find("| epoch 1:  50%|#####  |\n"), std::string::npos) << ev;
  EXPECT_EQ(ev.find("10%"), std::string::npos);
  EXPECT_NE(ev.find("... (5000 bytes)"), std::string::npos);
  EXPECT_NE(ev.find("| export API_KEY=<redacted>"), std::string::npos);
  EXPECT_EQ(ev.find("old line 12\n"), std::string::npos) << ev;  // only the last 20 lines
  EXPECT_NE(ev.find("old line 13\n"), std::string::npos);
}

TEST(LaunchReport, EnvComparedWithTheFirstNodeWhenTheRootsNodeIsSilent) {
  auto a = failed_attempt();
  a.nodes.erase(a.nodes.begin());  // node 0 (the root's) sent nothing
  NodeRecord third = a.nodes[0];
  third.node_rank = 2, third.host = "gpu-c", third.env["NCCL_SOCKET_IFNAME"] = "ib0";
  a.nodes.push_back(third);
  const auto r = build_launch_report({a});  // f points into it
  const auto* f = find_id(r, "launch.env.differs");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("between node 1 (gpu-b) and other nodes: NCCL_SOCKET_IFNAME"), std::string::npos)
      << f->title;
}

// A node whose --log-dir filesystem has no room left: a warning naming the node and a log path, even when
// every worker exited 0 (their writes failed where launch cannot see them).
TEST(LaunchReport, FullLogDirectoryIsNamed) {
  AttemptRecord ok;
  for (int n = 0; n < 2; ++n) {
    NodeRecord node;
    node.node_rank = n;
    node.ranks = {rank_rec(2 * n, 0, n)};
    node.ranks[0].log_path = "/logs/j/0/node" + std::to_string(n) + ".rank" + std::to_string(2 * n) + ".log";
    node.log_free_bytes = n == 1 ? 0 : int64_t(1) << 30;
    ok.nodes.push_back(node);
  }
  const auto r = build_launch_report({ok});
  const auto* full = find_id(r, "launch.logs.full");
  ASSERT_NE(full, nullptr);
  EXPECT_EQ(full->severity, report::Severity::warn);
  EXPECT_NE(full->title.find("node 1"), std::string::npos) << full->title;
  EXPECT_EQ(full->title.find("node 0"), std::string::npos) << full->title;
  ASSERT_EQ(full->evidence.size(), 1u);
  EXPECT_NE(full->evidence[0].find("/logs/j/0/node1.rank2.log"), std::string::npos) << full->evidence[0];
  ok.nodes[1].log_free_bytes = -1;  // unknown is not full
  const report::Report unknown = build_launch_report({ok});
  EXPECT_EQ(find_id(unknown, "launch.logs.full"), nullptr);
}

TEST(LaunchReport, EveryEmittedIdHasADoc) {
  std::set<std::string> documented;
  for (const auto& d : launch_finding_docs()) {
    EXPECT_TRUE(documented.insert(d.id).second) << "twice: " << d.id;
    EXPECT_FALSE(d.title.empty());
    EXPECT_GT(d.explanation.size(), 20u) << d.id;
  }
  std::vector<AttemptRecord> cases;
  for (auto cause : {StopCause::none, StopCause::worker_failed, StopCause::hang, StopCause::interrupted,
                     StopCause::node_lost, StopCause::master_lost}) {
    auto a = failed_attempt();
    a.stop.cause = cause;
    a.silent_nodes = {1};
    if (!a.nodes.empty()) a.nodes[0].log_free_bytes = 0;
    cases.push_back(a);
  }
  std::set<std::string> emitted;
  for (const auto& f : build_launch_report(cases).findings) emitted.insert(f.id);
  for (const auto& a : cases)
    for (const auto& f : build_launch_report({a}).findings) emitted.insert(f.id);
  for (const auto& id : emitted) EXPECT_TRUE(documented.count(id)) << "no doc for " << id;
  EXPECT_EQ(emitted, documented);  // every documented id can be emitted
}

}  // namespace
}  // namespace dd::launch
