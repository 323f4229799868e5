// Embedded TCP store under abuse: wrong tokens, garbage, truncation, oversized lengths, slowloris, a server
// that dies or freezes mid-wait, clients as forked processes, connect retries. Nothing may hang or crash the
// server.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <thread>

#include "rendezvous/auth.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"
#include "rendezvous/test_util.h"

namespace dd::rendezvous {
namespace {

using namespace std::chrono_literals;
using testing::raw_connect;

const std::string kToken = "test-token-4b1d";

std::unique_ptr<TcpStoreServer> serve(ServerOptions so = {}) {
  so.bind_host = "127.0.0.1";
  if (so.token.empty()) so.token = kToken;
  so.log = [](const std::string&) {};
  auto s = TcpStoreServer::start(so);
  EXPECT_TRUE(s.ok()) << s.error().message();
  return std::move(*s);
}

std::unique_ptr<TcpStoreClient> client(uint16_t port, const std::string& token = kToken) {
  auto c = TcpStoreClient::connect({"127.0.0.1", port}, token, deadline_in(5s));
  EXPECT_TRUE(c.ok()) << c.error().message();
  return c.ok() ? std::move(*c) : nullptr;
}

bool log_has(const TcpStoreServer& s, const std::string& needle) {
  for (const auto& l : s.recent_log())
    if (l.find(needle) != std::string::npos) return true;
  return false;
}

// True when the server closed the raw connection (recv sees EOF or a reset within 5 s).
bool closed_by_server(int fd) {
  char buf[256];
  while (true) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    if (n < 0) return false;  // timeout
  }
}

// Does the handshake by hand, so tests can then send raw bytes as an authenticated client.
int raw_authenticated(uint16_t port) {
  int fd = raw_connect(port);
  wire::Message hello;
  hello.op = wire::Op::kHello;
  hello.nonce = std::string(32, 'c');
  std::string f = wire::encode(hello);
  ::send(fd, f.data(), f.size(), 0);
  wire::FrameReader r;
  auto read = [&]() {
    char buf[4096];
    for (wire::Parsed p = r.next();; p = r.next()) {
      if (p.state == wire::Parsed::kFrame) return p.message;
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return wire::Message{};
      r.feed(buf, n);
    }
  };
  wire::Message ch = read();
  wire::Message auth;
  auth.op = wire::Op::kAuth;
  auth.proof = client_proof(kToken, hello.nonce, ch.nonce);
  f = wire::encode(auth);
  ::send(fd, f.data(), f.size(), 0);
  EXPECT_EQ(read().number, 1);
  return fd;
}

TEST(TcpStore, WrongTokenRefusedOnBothSides) {
  auto s = serve();
  auto c = TcpStoreClient::connect({"127.0.0.1", s->port()}, "not-the-token", deadline_in(5s));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().what.find(kWrongTokenMessage), std::string::npos) << c.error().what;
  for (int i = 0; i < 100 && s->stats().refused_token == 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(s->stats().refused_token, 1u);
  EXPECT_TRUE(log_has(*s, kWrongTokenMessage));
  EXPECT_TRUE(log_has(*s, "127.0.0.1:"));  // the peer address
  for (const auto& l : s->recent_log()) {
    EXPECT_EQ(l.find(kToken), std::string::npos) << "token leaked into the log: " << l;
    EXPECT_EQ(l.find("not-the-token"), std::string::npos) << l;
  }
  EXPECT_TRUE(client(s->port()) != nullptr);  // the right token still works
}

std::string bad_magic_hello() {
  wire::Message h;
  h.op = wire::Op::kHello;
  h.magic = 0xdeadbeef;
  h.nonce = std::string(32, 'n');
  return wire::encode(h);
}

TEST(TcpStore, GarbageAndBadFramesDropOnlyThatConnection) {
  auto s = serve();
  auto good = client(s->port());
  ASSERT_TRUE(good->set("k", "v").ok());
  struct Case {
    std::string bytes;
    bool authenticated;
    std::string logged;
  } cases[] = {
      {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", false, "frame length"},
      {std::string("\x7f\xff\xff\xf0", 4) + "xxxx", true, "frame length"},
      {bad_magic_hello(), false, "bad magic 0xdeadbeef"},
      {std::string("\0\0\0\x01\x20", 5), true, "unexpected ok frame"},
      {std::string("\0\0\0\x01\x0a", 5), false, "truncated key"},
      {std::string("\0\0\0\x01\x0a", 5), true, "truncated key"},
      {std::string("\0\x10\0\0\x0a", 5) + std::string(8192, 'x'), false, "before authenticating"},
  };
  for (const auto& c : cases) {
    int fd = c.authenticated ? raw_authenticated(s->port()) : raw_connect(s->port());
    ::send(fd, c.bytes.data(), c.bytes.size(), MSG_NOSIGNAL);
    EXPECT_TRUE(closed_by_server(fd)) << c.logged;
    ::close(fd);
    EXPECT_TRUE(log_has(*s, c.logged)) << "expected a log line with: " << c.logged;
  }
  EXPECT_EQ(*good->get("k", deadline_in(1s)), "v");  // the server and other connections carry on
  EXPECT_GE(s->stats().dropped_bad_input, 7u);
}

TEST(TcpStore, TruncatedFrameThenCloseIsHarmless) {
  auto s = serve();
  wire::Message m;
  m.op = wire::Op::kSet;
  m.key = "half";
  m.value = std::string(1000, 'x');
  std::string f = wire::encode(m);
  for (size_t cut : {size_t(1), size_t(4), size_t(5), f.size() / 2, f.size() - 1}) {
    int fd = raw_authenticated(s->port());
    ::send(fd, f.data(), cut, 0);
    ::close(fd);
  }
  auto c = client(s->port());
  EXPECT_EQ(*c->check({"half"}), std::vector<bool>{false});
}

TEST(TcpStore, SlowlorisDoesNotBlockOthersAndIsDropped) {
  ServerOptions so;
  so.handshake_timeout = 400ms;
  auto s = serve(so);
  std::vector<int> stalled;
  for (int i = 0; i < 50; ++i) {
    int fd = raw_connect(s->port());
    ::send(fd, "\0\0\0", 3, 0);  // half a header, then nothing
    stalled.push_back(fd);
  }
  int half = raw_authenticated(s->port());  // an authenticated client stalls mid-frame too
  ::send(half, "\0\0\1\0\x0a\0\0", 7, 0);
  auto start = Clock::now();
  auto c = client(s->port());
  ASSERT_TRUE(c->set("x", "1").ok());
  EXPECT_EQ(*c->get("x", deadline_in(1s)), "1");
  EXPECT_LT(Clock::now() - start, 300ms);
  for (int fd : stalled) EXPECT_TRUE(closed_by_server(fd));
  EXPECT_TRUE(log_has(*s, "no authentication within 400 ms"));
  for (int fd : stalled) ::close(fd);
  ::close(half);
}

TEST(TcpStore, VersionMismatchIsExplained) {
  auto s = serve();
  int fd = raw_connect(s->port());
  wire::Message hello;
  hello.op = wire::Op::kHello;
  hello.version = 99;
  hello.nonce = std::string(32, 'n');
  std::string f = wire::encode(hello);
  ::send(fd, f.data(), f.size(), 0);
  char buf[512];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  ASSERT_GT(n, 0);
  auto p = wire::parse_frame(std::string_view(buf, n), wire::Limits{});
  ASSERT_EQ(p.state, wire::Parsed::kFrame);
  EXPECT_EQ(p.message.op, wire::Op::kError);
  EXPECT_NE(p.message.value.find("version 99 not supported"), std::string::npos) << p.message.value;
  ::close(fd);
}

TEST(TcpStore, OversizedValueRefusedClientSide) {
  auto s = serve();
  auto c = client(s->port());
  auto r = c->set("big", std::string(wire::Limits{}.max_value + 1, 'x'));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("cap"), std::string::npos) << r.error().what;
  EXPECT_TRUE(c->set("small", "ok").ok());  // the connection is still good
}

// Runs a server in a child process; returns its pid and port.
std::pair<pid_t, uint16_t> serve_in_child() {
  int p[2];
  EXPECT_EQ(::pipe(p), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(p[0]);
    ServerOptions so;
    so.bind_host = "127.0.0.1";
    so.token = kToken;
    so.log = [](const std::string&) {};
    auto s = TcpStoreServer::start(so);
    uint16_t port = s.ok() ? (*s)->port() : 0;
    [[maybe_unused]] auto n = ::write(p[1], &port, sizeof port);
    ::pause();
    ::_exit(0);
  }
  ::close(p[1]);
  uint16_t port = 0;
  [[maybe_unused]] auto n = ::read(p[0], &port, sizeof port);
  ::close(p[0]);
  return {pid, port};
}

TEST(TcpStore, ServerKilledMidWaitErrorsAtOnce) {
  auto [pid, port] = serve_in_child();
  ASSERT_NE(port, 0);
  auto c = client(port);
  std::thread killer([pid = pid] {
    std::this_thread::sleep_for(200ms);
    ::kill(pid, SIGKILL);
  });
  auto start = Clock::now();
  auto r = c->wait({"never"}, deadline_in(10s));
  killer.join();
  ::waitpid(pid, nullptr, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_LT(Clock::now() - start, 2s);
  EXPECT_NE(r.error().what.find("closed the connection"), std::string::npos) << r.error().message();
  auto again = c->set("x", "y");  // later calls fail fast, no hang
  EXPECT_FALSE(again.ok());
}

TEST(TcpStore, FrozenServerMeansErrorAtTheDeadline) {
  auto [pid, port] = serve_in_child();
  ASSERT_NE(port, 0);
  auto c = client(port);
  ::kill(pid, SIGSTOP);
  auto start = Clock::now();
  auto r = c->wait({"never"}, deadline_in(1500ms));
  auto took = Clock::now() - start;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_LT(took, 2500ms);
  EXPECT_GE(took, 1400ms);
  EXPECT_NE(r.error().what.find("before the deadline"), std::string::npos) << r.error().message();
}

TEST(TcpStore, ServerStopWakesWaiters) {
  auto s = serve();
  auto c = client(s->port());
  std::thread stopper([&] {
    std::this_thread::sleep_for(200ms);
    s->stop();
  });
  auto start = Clock::now();
  auto r = c->get("never", deadline_in(10s));
  stopper.join();
  EXPECT_FALSE(r.ok());
  EXPECT_LT(Clock::now() - start, 2s);
}

TEST(TcpStore, ClientsAsForkedProcesses) {
  auto s = serve();
  const int n = 8;
  std::vector<pid_t> kids;
  for (int i = 0; i < n; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      auto c = TcpStoreClient::connect({"127.0.0.1", s->port()}, kToken, deadline_in(5s));
      if (!c) ::_exit(10);
      if (!(*c)->set("proc/" + std::to_string(i), std::to_string(::getpid())).ok()) ::_exit(11);
      auto v = (*c)->add("arrived", 1);
      if (!v) ::_exit(12);
      if (*v == n) (*c)->set("done", "1");
      ::_exit((*c)->wait({"done"}, deadline_in(10s)).ok() ? 0 : 13);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int st = 0;
    ::waitpid(pid, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "child exit " << WEXITSTATUS(st);
  }
  EXPECT_EQ(s->keys("proc/").size(), static_cast<size_t>(n));
  EXPECT_EQ(s->peek("arrived").value_or(""), std::to_string(n));
}

TEST(TcpStore, ConnectRetriesUntilServerStarts) {
  uint16_t port = testing::free_port();
  std::unique_ptr<TcpStoreServer> s;
  std::thread late([&] {
    std::this_thread::sleep_for(300ms);
    ServerOptions so;
    so.port = port;
    s = serve(so);
  });
  auto c = TcpStoreClient::connect({"127.0.0.1", port}, kToken, deadline_in(5s));
  late.join();
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_TRUE((*c)->set("a", "b").ok());
}

TEST(TcpStore, ConnectGivesUpAtTheDeadline) {
  uint16_t port = testing::free_port();
  auto start = Clock::now();
  auto c = TcpStoreClient::connect({"127.0.0.1", port}, kToken, deadline_in(500ms));
  auto took = Clock::now() - start;
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().what.find("gave up after"), std::string::npos) << c.error().message();
  EXPECT_EQ(c.error().err, ECONNREFUSED);
  EXPECT_LT(took, 1s);
  EXPECT_GE(took, 400ms);
}

TEST(TcpStore, MasterSeesWhoArrived) {
  auto s = serve();
  auto c = client(s->port());
  ASSERT_TRUE(c->set("node/0", "a").ok());
  ASSERT_TRUE(c->set("node/2", "b").ok());
  EXPECT_EQ(s->keys("node/"), (std::vector<std::string>{"node/0", "node/2"}));
  EXPECT_EQ(s->check({"node/0", "node/1", "node/2"}), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(s->peek("node/2").value_or(""), "b");
  EXPECT_FALSE(s->peek("node/1").has_value());
  EXPECT_EQ(s->stats().authenticated, 1u);
  EXPECT_EQ(s->stats().open_connections, 1u);
}

TEST(TcpStore, ParkedWaitsAreReleasedAndCounted) {
  auto s = serve();
  auto a = client(s->port()), b = client(s->port());
  std::thread t([&] { EXPECT_TRUE(a->wait({"x", "y"}, deadline_in(5s)).ok()); });
  for (int i = 0; i < 200 && s->stats().parked_waits == 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(s->stats().parked_waits, 1u);
  ASSERT_TRUE(b->set("x", "1").ok());
  EXPECT_EQ(s->stats().parked_waits, 1u);  // still needs y
  ASSERT_TRUE(b->set("y", "1").ok());
  t.join();
  EXPECT_EQ(s->stats().parked_waits, 0u);
}

TEST(TcpStore, StoreFullIsAnErrorNotACrash) {
  ServerOptions so;
  so.max_total_keys = 3;
  auto s = serve(so);
  auto c = client(s->port());
  for (const char* k : {"a", "b", "c"}) ASSERT_TRUE(c->set(k, "v").ok());
  auto r = c->set("d", "v");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("store full"), std::string::npos) << r.error().what;
  EXPECT_FALSE(c->add("e", 1).ok());
  EXPECT_TRUE(c->set("a", "overwrite is fine").ok());
}

TEST(TcpStore, HundredsOfClientsBarrier) {
  auto s = serve();
  const int n = 400;
  std::vector<std::thread> ts;
  std::atomic<int> passed{0};
  for (int i = 0; i < n; ++i) {
    ts.emplace_back([&, i] {
      auto c = TcpStoreClient::connect({"127.0.0.1", s->port()}, kToken, deadline_in(20s));
      if (!c) return;
      if (!(*c)->set("facts/" + std::to_string(i), std::string(2048, 'f')).ok()) return;
      auto v = (*c)->add("arrived", 1);
      if (v && *v == n) (*c)->set("done", "1");
      if (v && (*c)->wait({"done"}, deadline_in(20s)).ok()) ++passed;
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_EQ(passed.load(), n);
  EXPECT_EQ(s->keys("facts/").size(), static_cast<size_t>(n));
  EXPECT_EQ(s->stats().authenticated, static_cast<uint64_t>(n));
}

}  // namespace
}  // namespace dd::rendezvous
