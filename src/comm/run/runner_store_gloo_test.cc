// Two "nodes" (two runners, one rank each) meeting through the embedded TCP store of the rendezvous layer:
// the Gloo collectives run across them with every element verified; a wrong token is named.
#include <gtest/gtest.h>

#include <thread>

#include "comm/run/runner.h"
#include "comm/run/test_node.h"
#include "rendezvous/open_store.h"

namespace dd::comm {

using testing::bare_node;

namespace {
RunOptions gloo_node(int first, const std::string& url, const std::string& token) {
  RunOptions o;
  o.engine = rules::EngineKind::gloo;
  o.nproc = 1;
  o.world = 2;
  o.first_rank = first;
  o.self_exe = DD_BINARY;
  o.store_url = url;
  o.store_token = token;
  o.store_prefix = "dd/comm/twonodes/";
  o.init_timeout = std::chrono::milliseconds(5000);
  for (Coll c : {Coll::all_reduce, Coll::all_gather, Coll::alltoall, Coll::sendrecv}) {
    OpRequest r;
    r.coll = c;
    r.bytes = 16384;
    r.timeout = std::chrono::milliseconds(5000);
    o.ops.push_back(r);
  }
  return o;
}
}  // namespace

TEST(GlooStoreRunner, TwoNodesThroughTcpStore) {
  const std::string token = "test-token-comm";
  auto master = rendezvous::open_store("tcp://127.0.0.1:0", token, rendezvous::StoreRole::kMaster,
                                       rendezvous::deadline_in(std::chrono::seconds(5)));
  ASSERT_TRUE(master.ok()) << master.error().message();
  std::string url = "tcp://127.0.0.1:" + std::to_string(master->port);
  RunOutcome a, b;
  std::thread t([&] { b = run_collectives(gloo_node(1, url, token), bare_node()); });
  a = run_collectives(gloo_node(0, url, token), bare_node());
  t.join();
  for (const RunOutcome* r : {&a, &b}) {
    std::string why;
    for (const auto& f : r->findings) why += f.id + ": " + f.title + "\n";
    ASSERT_TRUE(r->ok) << why;
    EXPECT_EQ(r->world, 2);
    for (const auto& o : r->ops) {
      ASSERT_EQ(o.ranks.size(), 1u);
      EXPECT_EQ(o.wrong, 0);
      EXPECT_GT(o.ranks[0].checked, 0);
    }
  }
  EXPECT_EQ(a.ops[0].ranks[0].rank, 0);
  EXPECT_EQ(b.ops[0].ranks[0].rank, 1);
}

TEST(GlooStoreRunner, WrongTokenIsNamed) {
  auto master = rendezvous::open_store("tcp://127.0.0.1:0", "right", rendezvous::StoreRole::kMaster,
                                       rendezvous::deadline_in(std::chrono::seconds(5)));
  ASSERT_TRUE(master.ok());
  RunOptions o = gloo_node(0, "tcp://127.0.0.1:" + std::to_string(master->port), "wrong");
  o.init_timeout = std::chrono::milliseconds(2000);
  RunOutcome r = run_collectives(o, bare_node());
  EXPECT_FALSE(r.ok);
  std::string text;
  for (const auto& f : r.findings) text += f.title + " " + (f.evidence.empty() ? "" : f.evidence[0]) + "\n";
  EXPECT_NE(text.find("cannot reach the store"), std::string::npos) << text;
}

}  // namespace dd::comm
