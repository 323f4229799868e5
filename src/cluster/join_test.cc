// Tests of the join protocol over the in-memory store: ranks as threads, a real TCP mesh on loopback.
#include "cluster/join.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <thread>

#include "cluster/mesh.h"
#include "rendezvous/memory_store.h"

namespace dd::cluster {
namespace {

using namespace std::chrono_literals;

bool has(const report::Report& r, const std::string& id, const std::string& text = "") {
  for (const auto& f : r.findings)
    if (f.id == id &&
        (text.empty() ||
         (f.title + " " + fmt::format("{}", fmt::join(f.evidence, " "))).find(text) != std::string::npos))
      return true;
  return false;
}

probe::NodeFacts fake_facts(const std::string& host, const std::string& ifname_env) {
  probe::NodeFacts f;
  f.host.hostname = host;
  f.host.boot_id = "boot-" + host;
  f.host.netns = "net:[1]";
  probe::NetInterface i;
  i.name = "eth0";
  i.kind = "ethernet";
  i.up = i.running = true;
  i.ipv4 = {"127.0.0.1/8"};
  f.net.interfaces = {i};
  if (!ifname_env.empty()) f.env["NCCL_SOCKET_IFNAME"] = ifname_env;
  return f;
}

struct Node {
  JoinConfig cfg;
  std::unique_ptr<MeshServer> server;
  JoinOutcome out;
};

std::unique_ptr<Node> make_node(int rank, int world, const std::string& host,
                                std::chrono::milliseconds timeout, const std::string& ifname_env = "") {
  auto n = std::make_unique<Node>();
  auto facts = fake_facts(host, ifname_env);
  n->cfg.world = world;
  n->cfg.timeout = timeout;
  n->cfg.job_tag = 42;
  n->cfg.self.rank = rank;
  n->cfg.self.hostname = host;
  n->cfg.self.boot_id = facts.host.boot_id;
  n->cfg.self.netns = facts.host.netns;
  n->cfg.self.has_facts = true;
  n->cfg.facts_json = nlohmann::json(facts).dump();
  auto s = MeshServer::start({{"eth0", "127.0.0.1", 0}}, 42, rank);
  EXPECT_TRUE(s.ok());
  n->server = std::move(*s);
  n->cfg.self.endpoints = n->server->endpoints();
  return n;
}

void run_all(rendezvous::Store& store, std::vector<std::unique_ptr<Node>>& nodes) {
  std::vector<std::thread> ts;
  for (auto& n : nodes) ts.emplace_back([&store, &n] { n->out = run_join(store, n->cfg); });
  for (auto& t : ts) t.join();
}

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

TEST(ClusterJoin, RankRanges) {
  EXPECT_EQ(rank_ranges({2, 3}), "2,3");
  EXPECT_EQ(rank_ranges({1, 2, 3, 4, 7, 9, 10}), "1-4,7,9,10");
  EXPECT_EQ(rank_ranges({}), "");
}

}  // namespace
}  // namespace dd::cluster
