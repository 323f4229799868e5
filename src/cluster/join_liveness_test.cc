// A node killed mid-check behind a slow link: its results came, then its connection closed, and over that
// link the master hears of the close only just after it first looks. The master looks again for as long as
// the slowest connect suggests (liveness_grace), names the node as gone and drops its probes: no "slow
// connect" about a node that is not there.
#include <gtest/gtest.h>

#include <atomic>

#include "cluster/join_steps.h"
#include "cluster/join_test_util.h"
#include "common/json_limits.h"
#include "common/safe_text.h"
#include "rendezvous/meeting_join.h"
#include "rendezvous/memory_store.h"

namespace dd::cluster {
namespace {

using namespace join_testing;

// The master's store as a slow link shows it: rank 2's live key goes (its connection closed) only right after
// the first time the master looks at it once rank 2's mesh results are in.
class LateClose : public rendezvous::MemoryStore {
 public:
  Result<std::vector<bool>> check(const std::vector<std::string>& keys, rendezvous::Deadline d) override {
    auto have = MemoryStore::check(keys, d);
    const bool looks = std::find(keys.begin(), keys.end(), "dd/~live/2") != keys.end();
    if (have && looks && !closed_ &&
        MemoryStore::check({"dd/mesh/2"}, d).value_or(std::vector<bool>{false})[0]) {
      closed_ = true;
      (void)remove("dd/~live/2", d);
    }
    return have;
  }

 private:
  std::atomic<bool> closed_{false};
};

TEST(JoinLiveness, NodeGoneMidCheckBehindASlowLinkIsGoneNotSlow) {
  LateClose store;
  std::vector<std::unique_ptr<Node>> nodes;
  nodes.push_back(make_node(0, 3, "h0", 10s));
  nodes.push_back(make_node(1, 3, "h1", 10s));
  // Node 2: joins with facts and a mesh server, publishes its probes (every connect 400 ms: its slow link),
  // and dies before the verdict.
  auto dying = make_node(2, 3, "h2", 10s);
  std::thread node2([&] {
    const rendezvous::MeetingKeys keys("dd/");
    const auto until = rendezvous::deadline_in(10s);
    ASSERT_TRUE(rendezvous::claim_rank(store, keys, 2, until).ok());
    ASSERT_TRUE(rendezvous::publish_member(
        store, keys, 2, json_text(nlohmann::json(dying->cfg.self)),
        {rendezvous::StoreOp::set(keys.of("facts", 2), dying->cfg.facts_json)}, until));
    ASSERT_TRUE(store.get(keys.at("go"), until).ok());
    std::vector<MeshProbe> probes;
    for (int to : {0, 1})
      probes.push_back(MeshProbe{
          .from = 2, .to = to, .to_if = "eth0", .to_addr = "127.0.0.1", .ok = true, .connect_ms = 400});
    ASSERT_TRUE(store.set(keys.of("mesh", 2), json_text(nlohmann::json(probes)), until));
  });
  auto t0 = std::chrono::steady_clock::now();
  run_all(store, nodes);
  node2.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 6s);
  for (auto& n : nodes) {
    const report::Report& r = n->out.report;
    EXPECT_TRUE(has(r, "cluster.node.lost", "h2(2) left the run after joining")) << n->cfg.self.rank;
    EXPECT_FALSE(has(r, "cluster.mesh.latency")) << "a node that is gone is not a slow pair";
    EXPECT_FALSE(has(r, "cluster.mesh.incomplete"));
  }
}

// How long the master looks again, from the connect times the mesh measured: a round trip over the slowest
// link and a retransmission; nothing to wait for on a fast network; never more than 2 s.
TEST(JoinLiveness, GraceFollowsTheSlowestConnect) {
  using join_detail::liveness_grace;
  MeshResult lan, slow, failed;
  lan.probes = {MeshProbe{.ok = true, .connect_ms = 0.12}, MeshProbe{.ok = true, .connect_ms = 0.31}};
  EXPECT_EQ(liveness_grace(lan), 0ms);
  slow.probes = {MeshProbe{.ok = true, .connect_ms = 0.2}, MeshProbe{.ok = true, .connect_ms = 412}};
  EXPECT_EQ(liveness_grace(slow), 1236ms);
  failed.probes = {MeshProbe{.ok = false, .connect_ms = -1}, MeshProbe{.ok = true, .connect_ms = 3000}};
  EXPECT_EQ(liveness_grace(failed), 2000ms);
  EXPECT_EQ(liveness_grace(MeshResult{}), 0ms);
}

}  // namespace
}  // namespace dd::cluster
