// Tests of the root-cause choice across nodes and the log path.
#include <gtest/gtest.h>

#include "launch/attempt.h"

namespace dd::launch {

namespace {
RankRecord failed(int rank, int node, int64_t wall, int code) {
  RankRecord r;
  r.rank = rank;
  r.node_rank = node;
  r.end_wall_ms = wall;
  r.exit_code = code;
  r.tail = {"worker " + std::to_string(rank) + " output"};
  return r;
}
}  // namespace

TEST(AttemptLayout, LogPathNamesJobAttemptNodeAndRank) {
  EXPECT_EQ(worker_log_path("logs/job7", 2, 1, 5), "logs/job7/2/node1.rank5.log");
}

TEST(AttemptLayout, TheEarliestFailureAcrossNodesIsTheRootCause) {
  AttemptRecord rec;
  rec.stop.cause = StopCause::worker_failed;
  rec.stop.rank = 0;  // node 0 published first: its rank died of the real failure, a moment later
  rec.stop.root = failed(0, 0, 1000, 1);
  NodeRecord n0, n1;
  n0.ranks = {failed(0, 0, 1000, 1)};
  n1.ranks = {failed(3, 1, 940, 7)};
  RankRecord stopped = failed(2, 1, 1100, -1);
  stopped.stopped_by_us = true;
  stopped.signal = 15;
  n1.ranks.push_back(stopped);
  rec.nodes = {n0, n1};
  settle_root_cause(rec);
  EXPECT_EQ(rec.stop.rank, 3);
  EXPECT_EQ(rec.stop.node_rank, 1);
  EXPECT_EQ(rec.stop.root.exit_code, 7);
}

TEST(AttemptLayout, RootCauseKeptWhenItWasFirst) {
  AttemptRecord rec;
  rec.stop.cause = StopCause::worker_failed;
  rec.stop.rank = 1;
  rec.stop.root = failed(1, 0, 500, 9);
  NodeRecord n0;
  n0.ranks = {failed(1, 0, 500, 9), failed(0, 0, 700, 1)};
  rec.nodes = {n0};
  settle_root_cause(rec);
  EXPECT_EQ(rec.stop.rank, 1);
  EXPECT_EQ(rec.stop.root.exit_code, 9);
}

}  // namespace dd::launch
