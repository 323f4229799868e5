// Tests of the join protocol over the in-memory store: ranks as threads, a real TCP mesh on loopback; what
// the master names when a member's record cannot be read or two nodes disagree on --nnodes.
#include "cluster/join.h"

#include <gtest/gtest.h>

#include <thread>

#include "cluster/join_test_util.h"
#include "rendezvous/meeting_join.h"
#include "rendezvous/memory_store.h"

namespace dd::cluster {
namespace {

using namespace join_testing;

TEST(ClusterJoin, HealthyThreeNodesAgreeOnOneVerdict) {
  rendezvous::MemoryStore store;
  std::vector<std::unique_ptr<Node>> nodes;
  for (int r = 0; r < 3; ++r) nodes.push_back(make_node(r, 3, "h" + std::to_string(r), 10s));
  auto t0 = std::chrono::steady_clock::now();
  run_all(store, nodes);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_TRUE(nodes[0]->out.leader);
  EXPECT_TRUE(has(nodes[0]->out.report, "cluster.join.ok"));
  EXPECT_TRUE(has(nodes[0]->out.report, "cluster.mesh.ok"));
  EXPECT_TRUE(has(nodes[0]->out.report, "cluster.mesh.ifname_ok"));
  for (auto& n : nodes) {
    EXPECT_EQ(n->out.report.findings.size(), nodes[0]->out.report.findings.size());
    EXPECT_FALSE(has(n->out.report, "cluster.join.missing"));
  }
  ASSERT_TRUE(nodes[0]->out.full.contains("mesh"));
  EXPECT_EQ(nodes[0]->out.full["mesh"]["probes"].size(), 6u);  // 3 nodes x 2 peers x 1 endpoint
}

TEST(ClusterJoin, MissingNodeIsNamedWithinTheDeadline) {
  rendezvous::MemoryStore store;
  std::vector<std::unique_ptr<Node>> nodes;
  for (int r = 0; r < 2; ++r) nodes.push_back(make_node(r, 3, "h" + std::to_string(r), 4s));
  nodes[0]->cfg.expected_hosts = {"h0", "h1", "gpu17"};
  auto t0 = std::chrono::steady_clock::now();
  run_all(store, nodes);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 6s);
  for (auto& n : nodes) {
    EXPECT_TRUE(has(n->out.report, "cluster.join.missing", "waiting for node rank 2 since"))
        << n->cfg.self.rank;
    EXPECT_TRUE(has(n->out.report, "cluster.join.missing", "arrived: h0(0) h1(1)"));
    EXPECT_TRUE(has(n->out.report, "cluster.join.missing", "gpu17"));
    EXPECT_EQ(n->out.report.exit_code(), report::kExitFail);
  }
}

TEST(ClusterJoin, RankClaimedTwiceAndEnvDiff) {
  rendezvous::MemoryStore store;
  std::vector<std::unique_ptr<Node>> nodes;
  nodes.push_back(make_node(0, 2, "h0", 8s));
  nodes.push_back(make_node(1, 2, "h1", 8s, "eth9"));
  // Claim rank 1 first from h1 so the duplicate is the third process.
  ASSERT_TRUE(store.add("dd/claim/1", 0, rendezvous::deadline_in(1s)).ok());
  auto dup = make_node(1, 2, "h2", 8s);
  std::thread first([&] { nodes[1]->out = run_join(store, nodes[1]->cfg); });
  std::this_thread::sleep_for(100ms);
  std::thread second([&] { dup->out = run_join(store, dup->cfg); });
  // The leader only sees duplicates that claimed before everyone had joined: let the duplicate in first.
  for (int i = 0; i < 200; ++i) {
    auto c = store.check({"dd/dup/1/2"}, rendezvous::deadline_in(1s));
    if (c.ok() && (*c)[0]) break;
    std::this_thread::sleep_for(10ms);
  }
  nodes[0]->out = run_join(store, nodes[0]->cfg);
  first.join();
  second.join();
  EXPECT_TRUE(has(nodes[0]->out.report, "cluster.identity.rank_twice", "h2"));
  EXPECT_TRUE(has(dup->out.report, "cluster.identity.rank_twice"));
  EXPECT_TRUE(has(nodes[0]->out.report, "cluster.env.diff", "NCCL_SOCKET_IFNAME=eth9 on h1(1)"));
}

// A node whose member record does not parse (another version, or not distdoctor) joined all the same: the
// master counts it and names it with the parse error, instead of "all 1 nodes joined" for two.
TEST(ClusterJoin, UnreadableMemberIsNamedNotDropped) {
  rendezvous::MemoryStore store;
  std::vector<std::unique_ptr<Node>> nodes;
  nodes.push_back(make_node(0, 2, "h0", 10s));
  const rendezvous::MeetingKeys keys("dd/");
  const auto until = rendezvous::deadline_in(10s);
  ASSERT_EQ(*rendezvous::claim_rank(store, keys, 1, until), 1);
  ASSERT_TRUE(
      rendezvous::publish_member(store, keys, 1, R"({"rank":1,"hostname":["not","a","name"]})", {}, until));
  std::thread other([&] {  // it reads the verdict as a node does, so the master need not wait for a reader
    (void)store.get(keys.at("verdict"), until);
    (void)store.add(keys.at("read"), 1, until);
  });
  auto t0 = std::chrono::steady_clock::now();
  nodes[0]->out = run_join(store, nodes[0]->cfg);
  other.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 6s);
  const report::Report& r = nodes[0]->out.report;
  EXPECT_TRUE(
      has(r, "cluster.join.unreadable_member", "node rank 1 joined, but its member record cannot be read"));
  EXPECT_TRUE(has(r, "cluster.join.unreadable_member", "node rank 1: its record does not parse: "));
  EXPECT_TRUE(has(r, "cluster.join.unreadable_member", "type must be string"));
  EXPECT_TRUE(has(r, "cluster.join.ok", "all 2 nodes joined")) << "it came: it is counted";
  EXPECT_EQ(r.exit_code(), report::kExitFail);
}

// Two nodes of one check started with different --nnodes: the master (3) sees node 1 (2) arrive and stops
// waiting for a node rank 2 that node 1 never expects; both name both counts well before the deadline.
TEST(ClusterJoin, NnodesDifferIsNamedBeforeTheDeadline) {
  rendezvous::MemoryStore store;
  std::vector<std::unique_ptr<Node>> nodes;
  nodes.push_back(make_node(0, 3, "h0", 20s));
  nodes.push_back(make_node(1, 2, "h1", 20s));
  auto t0 = std::chrono::steady_clock::now();
  run_all(store, nodes);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s) << "the join window is 15 s";
  for (auto& n : nodes) {
    EXPECT_TRUE(has(n->out.report, "cluster.join.nnodes_differ",
                    "node rank 1 (h1) was started with --nnodes 2, node rank 0 (h0) with --nnodes 3"))
        << n->cfg.self.rank;
    EXPECT_FALSE(has(n->out.report, "cluster.join.missing"));
    EXPECT_EQ(n->out.report.exit_code(), report::kExitFail);
  }
}

// The other way round: the master (2) counts node 1 (3) as it arrives; and node rank 2 of that node's job,
// past the master's last rank, is never counted there, so it names the difference itself.
TEST(ClusterJoin, NnodesDifferNamedByTheMasterAndByANodePastItsLastRank) {
  rendezvous::MemoryStore store;
  std::vector<std::unique_ptr<Node>> nodes;
  nodes.push_back(make_node(0, 2, "h0", 20s));
  nodes.push_back(make_node(1, 3, "h1", 20s));
  nodes.push_back(make_node(2, 3, "h2", 20s));
  auto t0 = std::chrono::steady_clock::now();
  run_all(store, nodes);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  for (int r : {0, 1})
    EXPECT_TRUE(has(nodes[r]->out.report, "cluster.join.nnodes_differ",
                    "node rank 1 (h1) was started with --nnodes 3, node rank 0 (h0) with --nnodes 2"))
        << r;
  EXPECT_TRUE(has(nodes[2]->out.report, "cluster.join.nnodes_differ",
                  "node rank 0 (h0) was started with --nnodes 2, node rank 2 (h2) with --nnodes 3"));
  EXPECT_TRUE(has(nodes[2]->out.report, "cluster.join.nnodes_differ", "the master does not wait for it"));
}

TEST(ClusterJoin, RankRanges) {
  EXPECT_EQ(rank_ranges({2, 3}), "2,3");
  EXPECT_EQ(rank_ranges({1, 2, 3, 4, 7, 9, 10}), "1-4,7,9,10");
  EXPECT_EQ(rank_ranges({}), "");
}

}  // namespace
}  // namespace dd::cluster
