// open_store: the master starts the embedded server and talks to it; workers connect; bad addresses are
// errors.
#include "rendezvous/open_store.h"

#include <gtest/gtest.h>

#include "rendezvous/auth.h"
#include "rendezvous/test_util.h"

namespace dd::rendezvous {
namespace {

using namespace std::chrono_literals;

TEST(OpenStore, MasterAndWorkerShareTheEmbeddedStore) {
  std::string token = generate_token();
  auto master = open_store("127.0.0.1:0", token, StoreRole::kMaster, deadline_in(5s));
  ASSERT_TRUE(master.ok()) << master.error().message();
  ASSERT_TRUE(master->server);
  EXPECT_EQ(master->kind, "tcp");
  EXPECT_NE(master->port, 0);
  EXPECT_NE(master->description.find(std::to_string(master->port)), std::string::npos);
  EXPECT_EQ(master->description.find(token), std::string::npos);
  std::string addr = "tcp://127.0.0.1:" + std::to_string(master->port);
  auto worker = open_store(addr, token, StoreRole::kClient, deadline_in(5s));
  ASSERT_TRUE(worker.ok()) << worker.error().message();
  EXPECT_FALSE(worker->server);
  ASSERT_TRUE(worker->store->set("node/1", "facts", testing::soon()).ok());
  EXPECT_EQ(*master->store->get("node/1", deadline_in(1s)), "facts");
  EXPECT_EQ(master->server->keys("node/"), std::vector<std::string>{"node/1"});
  // A joining node's proof rides with its first request: the wrong token fails that request.
  auto intruder = open_store(addr, "wrong", StoreRole::kClient, deadline_in(5s));
  ASSERT_TRUE(intruder.ok()) << intruder.error().message();
  auto claim = intruder->store->add("claim/1", 1, deadline_in(5s));
  ASSERT_FALSE(claim.ok());
  EXPECT_EQ(claim.error().kind, ErrorKind::auth);
  EXPECT_NE(claim.error().what.find(kWrongTokenMessage), std::string::npos);
  // A caller whose first request another library makes asks for the verdict at open.
  auto early =
      open_store(addr, "wrong", StoreRole::kClient, deadline_in(5s), OpenOptions{.verdict_at_open = true});
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().kind, ErrorKind::auth);
}

TEST(OpenStore, BadAddressesAreErrors) {
  EXPECT_FALSE(open_store("nohostport", "t", StoreRole::kClient, deadline_in(1s)).ok());
  EXPECT_FALSE(open_store("127.0.0.1:99999", "t", StoreRole::kClient, deadline_in(1s)).ok());
  auto r = open_store("zk://a:1", "t", StoreRole::kClient, deadline_in(1s));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("unknown scheme"), std::string::npos);
  EXPECT_FALSE(open_store("etcd://127.0.0.1:notaport", "", StoreRole::kClient, deadline_in(1s)).ok());
  EXPECT_EQ(open_store("memory://", "", StoreRole::kMaster, deadline_in(1s))->kind, "memory");
  auto parsed = parse_host_port("[::1]:29500");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->host, "::1");
  EXPECT_EQ(parsed->port, 29500);
}

TEST(OpenStore, EtcdUnreachableFailsAtTheDeadline) {
  auto start = Clock::now();
  auto r = open_store("etcd://127.0.0.1:" + std::to_string(testing::free_port()), "t", StoreRole::kClient,
                      deadline_in(600ms));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("not reachable"), std::string::npos) << r.error().message();
  EXPECT_LT(Clock::now() - start, 2s);
}

}  // namespace
}  // namespace dd::rendezvous
