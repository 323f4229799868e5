// The same Store contract checked on every store: memory, prefix, embedded TCP (and prefix over it), etcd,
// and the directory store the collective workers of one node share.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <thread>

#include "rendezvous/dir_store.h"
#include "rendezvous/memory_store.h"
#include "rendezvous/open_store.h"
#include "rendezvous/prefix_store.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/test_util.h"

namespace dd::rendezvous {
namespace {

using namespace std::chrono_literals;

// One store under test, plus a way to open more handles onto the same data (for concurrent clients).
struct Fixture {
  std::shared_ptr<TcpStoreServer> server;
  std::shared_ptr<Store> shared;  // memory store: every handle is the same object
  std::function<std::shared_ptr<Store>()> open;
  std::shared_ptr<void> dir;  // the directory store's folder, removed with the fixture
};

Fixture make(const std::string& kind) {
  Fixture f;
  static std::atomic<int> job{0};
  std::string ns = "t" + std::to_string(::getpid()) + "-" + std::to_string(job++);
  if (kind == "memory" || kind == "prefix-memory") {
    f.shared = std::make_shared<MemoryStore>();
    f.open = [f, kind, ns]() -> std::shared_ptr<Store> {
      if (kind == "memory") return f.shared;
      return std::make_shared<PrefixStore>(ns, f.shared);
    };
  } else if (kind == "tcp" || kind == "prefix-tcp") {
    ServerOptions so;
    so.bind_host = "127.0.0.1";
    so.token = "conformance-token";
    f.server = std::move(*TcpStoreServer::start(so));
    uint16_t port = f.server->port();
    f.open = [port, kind, ns]() -> std::shared_ptr<Store> {
      auto c = TcpStoreClient::connect({"127.0.0.1", port}, "conformance-token", deadline_in(5s));
      EXPECT_TRUE(c.ok()) << c.error().message();
      std::shared_ptr<Store> s = std::move(*c);
      if (kind == "tcp") return s;
      return std::make_shared<PrefixStore>(ns, s);
    };
  } else if (kind == "dir") {
    auto path = std::filesystem::path(::testing::TempDir()) / ("dd-dirstore-" + ns);
    std::filesystem::create_directories(path);
    f.dir = std::shared_ptr<void>(nullptr, [path](void*) { std::filesystem::remove_all(path); });
    f.open = [path]() -> std::shared_ptr<Store> { return std::make_shared<DirStore>(path.string()); };
  } else if (kind == "etcd") {
    auto* etcd = testing::EtcdProcess::shared();
    if (!etcd) return f;
    std::string url = etcd->url(ns);
    f.open = [url]() -> std::shared_ptr<Store> {
      auto s = open_store(url, "conformance-token", StoreRole::kClient, deadline_in(5s));
      EXPECT_TRUE(s.ok()) << s.error().message();
      return s->store;
    };
  }
  return f;
}

class StoreConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "etcd" && !testing::EtcdProcess::available())
      GTEST_SKIP() << "etcd not installed (" << testing::EtcdProcess::kBinary
                   << "); apt-get install etcd-server";
    f_ = make(GetParam());
    if (!f_.open) GTEST_SKIP() << "etcd did not start on loopback";
    s_ = f_.open();
    ASSERT_TRUE(s_);
  }
  Fixture f_;
  std::shared_ptr<Store> s_;
};

TEST_P(StoreConformance, SetGetOverwrite) {
  ASSERT_TRUE(s_->set("a", "1", testing::soon()).ok());
  EXPECT_EQ(*s_->get("a", deadline_in(1s)), "1");
  ASSERT_TRUE(s_->set("a", std::string("bin\0ary", 7), testing::soon()).ok());
  EXPECT_EQ(*s_->get("a", deadline_in(1s)), std::string("bin\0ary", 7));
  std::string big(300000, 'x');
  big[1234] = '\xff';
  ASSERT_TRUE(s_->set("big", big, testing::soon()).ok());
  EXPECT_EQ(*s_->get("big", deadline_in(1s)), big);
}

TEST_P(StoreConformance, GetTimesOutNamingTheKey) {
  auto start = Clock::now();
  auto r = s_->get("never", deadline_in(300ms));
  auto took = Clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("never"), std::string::npos) << r.error().what;
  EXPECT_GE(took, 150ms);
  EXPECT_LT(took, 2s);
}

TEST_P(StoreConformance, GetBlocksUntilSet) {
  auto other = f_.open();
  std::thread t([&] {
    std::this_thread::sleep_for(100ms);
    EXPECT_TRUE(other->set("late", "here", testing::soon()).ok());
  });
  auto r = s_->get("late", deadline_in(5s));
  t.join();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(*r, "here");
}

TEST_P(StoreConformance, AddCounts) {
  EXPECT_EQ(*s_->add("n", 5, testing::soon()), 5);
  EXPECT_EQ(*s_->add("n", -2, testing::soon()), 3);
  EXPECT_EQ(*s_->get("n", deadline_in(1s)), "3");
  ASSERT_TRUE(s_->set("text", "abc", testing::soon()).ok());
  auto bad = s_->add("text", 1, testing::soon());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().what.find("not an integer"), std::string::npos) << bad.error().what;
}

// Found by fuzz/store_server.cc: two adds past 2^63 overflowed a signed counter (undefined behaviour).
TEST_P(StoreConformance, AddPastTheCounterRangeIsAnError) {
  ASSERT_TRUE(s_->add("big", INT64_MAX - 1, testing::soon()).ok());
  auto over = s_->add("big", 2, testing::soon());
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().what.find("does not fit a 64-bit counter"), std::string::npos) << over.error().what;
  EXPECT_EQ(*s_->get("big", deadline_in(1s)), std::to_string(INT64_MAX - 1));
  EXPECT_EQ(*s_->add("big", -1, testing::soon()), INT64_MAX - 2);
}

// Store::pipeline: the ops run in order, one number each (add: the new value; set: 0).
TEST_P(StoreConformance, PipelineRunsInOrder) {
  auto r = s_->pipeline({StoreOp::set("p/a", "1"), StoreOp::add("p/n", 2), StoreOp::add("p/n", 3),
                         StoreOp::set("p/b", "after the adds")},
                        testing::soon());
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(*r, (std::vector<int64_t>{0, 2, 5, 0}));
  EXPECT_EQ(*s_->get("p/a", deadline_in(1s)), "1");
  EXPECT_EQ(*s_->get("p/n", deadline_in(1s)), "5");
  EXPECT_EQ(*s_->get("p/b", deadline_in(1s)), "after the adds");
  auto empty = s_->pipeline({}, testing::soon());
  ASSERT_TRUE(empty.ok()) << empty.error().message();
  EXPECT_TRUE(empty->empty());
}

// A refused op does not stop the ones behind it; the first failure is the answer.
TEST_P(StoreConformance, PipelineTriesEveryOpAndReportsTheFirstFailure) {
  ASSERT_TRUE(s_->set("q/text", "abc", testing::soon()).ok());
  auto r = s_->pipeline({StoreOp::add("q/text", 1), StoreOp::set("q/after", "ran")}, testing::soon());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("not an integer"), std::string::npos) << r.error().what;
  EXPECT_EQ(*s_->get("q/after", deadline_in(1s)), "ran");
  EXPECT_EQ(*s_->add("q/n", 1, testing::soon()), 1);  // the handle still works
}

TEST_P(StoreConformance, WaitNamesMissingKeys) {
  ASSERT_TRUE(s_->set("rank/0", "x", testing::soon()).ok());
  ASSERT_TRUE(s_->wait({"rank/0"}, deadline_in(1s)).ok());
  auto r = s_->wait({"rank/0", "rank/2", "rank/3"}, deadline_in(300ms));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("rank/2, rank/3"), std::string::npos) << r.error().what;
  EXPECT_EQ(r.error().what.find("rank/0"), std::string::npos) << r.error().what;
}

TEST_P(StoreConformance, CheckRemoveList) {
  ASSERT_TRUE(s_->set("node/1", "a", testing::soon()).ok());
  ASSERT_TRUE(s_->set("node/0", "b", testing::soon()).ok());
  ASSERT_TRUE(s_->set("other", "c", testing::soon()).ok());
  EXPECT_EQ(*s_->check({"node/0", "node/5", "node/1"}, testing::soon()),
            (std::vector<bool>{true, false, true}));
  EXPECT_EQ(*s_->list("node/", testing::soon()), (std::vector<std::string>{"node/0", "node/1"}));
  ASSERT_TRUE(s_->remove("node/0", testing::soon()).ok());
  EXPECT_EQ(*s_->check({"node/0"}, testing::soon()), std::vector<bool>{false});
  EXPECT_EQ(*s_->list("node/", testing::soon()), std::vector<std::string>{"node/1"});
  EXPECT_TRUE(s_->remove("not-there", testing::soon()).ok());
}

TEST_P(StoreConformance, ConcurrentClientsBarrier) {
  const int n = GetParam() == "etcd" ? 8 : 32;
  std::vector<std::thread> ts;
  std::atomic<int> ok{0};
  for (int i = 0; i < n; ++i) {
    ts.emplace_back([&, i] {
      auto s = f_.open();
      if (!s->set("facts/" + std::to_string(i), std::string(2048, 'f'), testing::soon()).ok()) return;
      auto v = s->add("arrived", 1, testing::soon());
      if (!v.ok()) return;
      if (*v == n) s->set("done", "1", testing::soon());
      if (s->wait({"done"}, deadline_in(20s)).ok()) ++ok;
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(ok.load(), n);
  EXPECT_EQ(*s_->get("arrived", deadline_in(1s)), std::to_string(n));
  EXPECT_EQ(s_->list("facts/", testing::soon())->size(), static_cast<size_t>(n));
}

INSTANTIATE_TEST_SUITE_P(AllStores, StoreConformance,
                         ::testing::Values("memory", "prefix-memory", "tcp", "prefix-tcp", "etcd", "dir"),
                         [](const auto& info) {
                           std::string s = info.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

}  // namespace
}  // namespace dd::rendezvous
