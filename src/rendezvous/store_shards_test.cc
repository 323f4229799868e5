// The store server's loop threads: listeners sized for the expected burst of connects, parked waits completed
// by whichever thread stores the key, cancelled with their connection, timed out by their own thread, and
// keepalive on the server's end of every connection. Reads the kernel's socket table (/proc/net/tcp).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "rendezvous/tcp_test_util.h"

namespace dd::rendezvous::testing {
namespace {

// The "tr" (timer) column of every socket on this local port in this TCP state ("0A" listen, "01"
// established).
std::vector<std::string> sockets_on(uint16_t port, const std::string& state) {
  std::ifstream in("/proc/net/tcp");
  std::vector<std::string> timers;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string slot, local, remote, st, queues, timer;
    f >> slot >> local >> remote >> st >> queues >> timer;
    if (std::stoul(local.substr(local.find(':') + 1), nullptr, 16) == port && st == state)
      timers.push_back(timer.substr(0, 2));
  }
  return timers;
}

bool have_proc_net_tcp() { return std::ifstream("/proc/net/tcp").good(); }

TEST(StoreShards, ListenersCoverTheExpectedBurst) {
  if (!have_proc_net_tcp()) GTEST_SKIP() << "no /proc/net/tcp to count the listening sockets in";
  ServerOptions so;
  so.threads = 2;
  auto plain = serve(so);
  EXPECT_EQ(sockets_on(plain->port(), "0A").size(), 2u);  // one per thread
  so.expected_clients = 100;
  so.somaxconn = 10;  // each accept queue holds 10: ten queues for a burst of 100
  auto wide = serve(so);
  EXPECT_EQ(sockets_on(wide->port(), "0A").size(), 10u);
  std::vector<std::thread> ts;
  std::atomic<int> served{0};
  for (int i = 0; i < 100; ++i)
    ts.emplace_back([&] {
      auto c = TcpStoreClient::connect({"127.0.0.1", wide->port()}, kToken, deadline_in(20s));
      if (c && (*c)->add("n", 1, soon()).ok()) ++served;
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(served.load(), 100);
  EXPECT_EQ(wide->peek("n"), "100");
}

TEST(StoreShards, WaitsEndAcrossThreads) {
  ServerOptions so;
  so.threads = 4;
  auto s = serve(so);
  const int n = 40;
  std::vector<std::unique_ptr<TcpStoreClient>> waiters;
  for (int i = 0; i < n; ++i) waiters.push_back(client(s->port()));
  std::vector<std::thread> ts;
  std::atomic<int> released{0};
  for (int i = 0; i < n; ++i)
    ts.emplace_back([&, i] {
      auto v = waiters[i]->get("go", deadline_in(20s));
      if (v && *v == "now") ++released;
    });
  for (auto until = deadline_in(10s); s->stats().parked_waits < n && Clock::now() < until;)
    std::this_thread::sleep_for(5ms);
  ASSERT_EQ(s->stats().parked_waits, static_cast<uint64_t>(n));
  // A parked wait whose connection closes is cancelled; one that passes its deadline says what is missing.
  int leaver = raw_authenticated(s->port());
  wire::Message w;
  w.op = wire::Op::kWait;
  w.keys = {"never"};
  w.number = 20000;
  std::string frame = wire::encode(w);
  ASSERT_EQ(::send(leaver, frame.data(), frame.size(), MSG_NOSIGNAL), static_cast<ssize_t>(frame.size()));
  for (auto until = deadline_in(10s); s->stats().parked_waits < n + 1 && Clock::now() < until;)
    std::this_thread::sleep_for(5ms);
  auto impatient = client(s->port());
  auto late = impatient->wait({"never"}, deadline_in(400ms));
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().what.find("never"), std::string::npos) << late.error().what;
  ASSERT_TRUE(client(s->port())->set("go", "now", soon()).ok());  // from yet another connection
  for (auto& t : ts) t.join();
  EXPECT_EQ(released.load(), n);
  EXPECT_EQ(s->stats().parked_waits, 1u);  // the leaver's
  ::close(leaver);
  for (auto until = deadline_in(10s); s->stats().parked_waits > 0 && Clock::now() < until;)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(s->stats().parked_waits, 0u);
}

TEST(StoreShards, ServerEndsOfConnectionsHaveKeepalive) {
  if (!have_proc_net_tcp()) GTEST_SKIP() << "no /proc/net/tcp to read the server's socket timers from";
  auto s = serve();
  auto c = client(s->port());
  ASSERT_TRUE(c->set("k", "v", soon()).ok());
  // "02": the keepalive timer, once the answer's retransmission timer ("01") has ended; "00" without
  // keepalive.
  std::vector<std::string> timers;
  for (auto until = deadline_in(5s); Clock::now() < until; std::this_thread::sleep_for(20ms)) {
    timers = sockets_on(s->port(), "01");
    if (timers.size() == 1 && timers[0] != "01") break;
  }
  EXPECT_EQ(timers, std::vector<std::string>{"02"});
}

}  // namespace
}  // namespace dd::rendezvous::testing
