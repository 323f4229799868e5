// Tests of the launch records' JSON form: full round trips, defaults for missing fields, stop-cause names.
#include "launch/launch_facts.h"

#include <gtest/gtest.h>

namespace dd::launch {
namespace {

RankRecord full_rank() {
  RankRecord r;
  r.rank = 5;
  r.local_rank = 1;
  r.node_rank = 2;
  r.pid = 4242;
  r.running = true;
  r.stopped_by_us = true;
  r.exit_code = 7;
  r.signal = 9;
  r.end_s = 3.25;
  r.end_wall_ms = 1790000000123;
  r.log_path = "logs/j/0/2.5.log";
  r.tail = {"a", "b"};
  r.traceback = "Traceback (most recent call last):\nValueError: x";
  r.proc_state = "S (sleeping)";
  r.wchan = "futex_wait_queue";
  r.cpu_s = 12.5;
  r.cpu_window_s = 0.01;
  r.silent_s = 61;
  r.collectives = 1200;
  r.stack = "Thread 1 (idle)";
  r.stack_error = "";
  r.fr_dump = "logs/j/0/fr_rank5";
  r.ending_state = "Z (zombie)";
  return r;
}

TEST(LaunchFacts, StopCauseNamesRoundTrip) {
  for (auto c : {StopCause::none, StopCause::worker_failed, StopCause::hang, StopCause::interrupted,
                 StopCause::node_lost, StopCause::master_lost})
    EXPECT_EQ(stop_cause_from_name(stop_cause_name(c)), c);
  EXPECT_STREQ(stop_cause_name(StopCause::worker_failed), "worker_failed");
  EXPECT_EQ(stop_cause_from_name("bogus"), StopCause::none);
}

TEST(LaunchFacts, RankRecordRoundTrip) {
  const RankRecord r = full_rank();
  const RankRecord back = nlohmann::json(r).get<RankRecord>();
  EXPECT_EQ(nlohmann::json(back), nlohmann::json(r));
  EXPECT_EQ(back.end_wall_ms, 1790000000123);
  EXPECT_EQ(back.collectives, 1200);
  EXPECT_EQ(back.tail, r.tail);
  EXPECT_EQ(back.ending_state, "Z (zombie)");
}

TEST(LaunchFacts, AttemptRecordRoundTrip) {
  AttemptRecord a;
  a.attempt = 2;
  a.command = {"python", "train.py", "--lr", "0.1"};
  a.stop.cause = StopCause::worker_failed;
  a.stop.node_rank = 1;
  a.stop.rank = 5;
  a.stop.detail = "exit status 7";
  a.stop.wall_ms = 1790000000000;
  a.stop.root = full_rank();
  a.stop.diagnosis.push_back(
      {.id = "known.nccl.x", .severity = report::Severity::fail, .title = "t", .rank = 5});
  NodeRecord n;
  n.node_rank = 1;
  n.host = "gpu-b";
  n.ranks = {full_rank()};
  n.env = {{"NCCL_SOCKET_IFNAME", "eth0"}, {"HF_TOKEN", "<redacted>"}};
  a.nodes = {n};
  a.silent_nodes = {3};
  a.duration_s = 41.5;
  a.stop_latency_s = 0.2;
  const nlohmann::json j = a;
  const AttemptRecord back = j.get<AttemptRecord>();
  EXPECT_EQ(nlohmann::json(back), j);
  EXPECT_EQ(j["stop"]["cause"], "worker_failed");
  EXPECT_EQ(back.stop.diagnosis.at(0).id, "known.nccl.x");
  EXPECT_EQ(back.nodes.at(0).env.at("NCCL_SOCKET_IFNAME"), "eth0");
  EXPECT_EQ(back.silent_nodes, std::vector<int>{3});
}

TEST(LaunchFacts, MissingFieldsReadAsDefaults) {
  const auto r = nlohmann::json::object().get<RankRecord>();
  EXPECT_EQ(r.rank, -1);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_EQ(r.collectives, -1);
  EXPECT_FALSE(r.running);
  const auto a = nlohmann::json{{"attempt", 1}, {"stop", {{"cause", "hang"}}}}.get<AttemptRecord>();
  EXPECT_EQ(a.attempt, 1);
  EXPECT_EQ(a.stop.cause, StopCause::hang);
  EXPECT_EQ(a.stop.rank, -1);
  EXPECT_TRUE(a.nodes.empty());
  EXPECT_EQ(a.stop_latency_s, -1);
  const auto n = nlohmann::json{{"host", "h"}}.get<NodeRecord>();
  EXPECT_EQ(n.node_rank, -1);
  EXPECT_TRUE(n.env.empty());
}

}  // namespace
}  // namespace dd::launch
