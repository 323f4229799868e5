// Every store call ends by its deadline with a typed error: set/add/check/remove/list against a server that
// accepts but never answers return ErrorKind::timeout naming the peer, on the TCP store (also through a
// PrefixStore) and on etcd's HTTP gateway; refused, wrong-token and garbage answers carry their own kinds.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <functional>
#include <thread>

#include "rendezvous/etcd_store.h"
#include "rendezvous/prefix_store.h"
#include "rendezvous/tcp_test_util.h"

namespace dd::rendezvous {
namespace {

using namespace std::chrono_literals;
using namespace testing;

constexpr auto kDeadline = 500ms;
constexpr auto kSlack = 1000ms;  // a loaded CI machine: the call must end well before this after the deadline

// Runs call with a deadline kDeadline from now and checks it ended as a timeout naming peer, on time.
void expect_timeout(const char* what, const std::function<Error(Deadline)>& call, const std::string& peer) {
  SCOPED_TRACE(what);
  auto start = Clock::now();
  Error e = call(deadline_in(kDeadline));
  auto took = Clock::now() - start;
  EXPECT_EQ(e.kind, ErrorKind::timeout) << e.message();
  EXPECT_EQ(e.peer, peer) << e.message();
  EXPECT_GE(took, kDeadline - 50ms);
  EXPECT_LT(took, kDeadline + kSlack);
}

template <typename T>
Error error_of(const Result<T>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? Error{"unexpected success"} : r.error();
}

TEST(TcpStoreDeadline, CallsToAFrozenServerTimeOut) {
  auto [pid, port] = serve_in_child();
  ASSERT_NE(port, 0);
  // A failed call leaves its connection unusable (by design), so every call gets its own client.
  std::vector<std::shared_ptr<Store>> c;
  for (int i = 0; i < 6; ++i) c.push_back(client(port));
  auto prefixed = std::make_shared<PrefixStore>("job", c[5]);
  ::kill(pid, SIGSTOP);  // connected and authenticated, now nobody answers
  int st = 0;  // SIGSTOP is asynchronous: wait until the server really stopped, or it may still answer a call
  ASSERT_EQ(::waitpid(pid, &st, WUNTRACED), pid);
  ASSERT_TRUE(WIFSTOPPED(st));
  std::string peer = "127.0.0.1:" + std::to_string(port);
  expect_timeout(
      "set", [&](Deadline d) { return error_of(c[0]->set("k", "v", d)); }, peer);
  expect_timeout(
      "add", [&](Deadline d) { return error_of(c[1]->add("n", 1, d)); }, peer);
  expect_timeout(
      "check", [&](Deadline d) { return error_of(c[2]->check({"k"}, d)); }, peer);
  expect_timeout(
      "remove", [&](Deadline d) { return error_of(c[3]->remove("k", d)); }, peer);
  expect_timeout(
      "list", [&](Deadline d) { return error_of(c[4]->list("", d)); }, peer);
  expect_timeout(
      "prefix set", [&](Deadline d) { return error_of(prefixed->set("k", "v", d)); }, peer);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

TEST(TcpStoreDeadline, ConnectToASilentListenerTimesOut) {
  uint16_t port = 0;
  int fd = silent_listener(&port);
  ASSERT_GE(fd, 0);
  std::string peer = "127.0.0.1:" + std::to_string(port);
  expect_timeout(
      "connect",
      [&](Deadline d) {
        return error_of(TcpStoreClient::connect({"127.0.0.1", port}, kToken, d));
      },
      peer);
  ::close(fd);
}

TEST(TcpStoreErrorKind, RefusedWrongTokenAndGarbage) {
  uint16_t closed_port = free_port();
  auto refused = TcpStoreClient::connect({"127.0.0.1", closed_port}, kToken, deadline_in(300ms));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::refused) << refused.error().message();
  EXPECT_EQ(refused.error().peer, "127.0.0.1:" + std::to_string(closed_port));

  auto s = serve();
  auto wrong = TcpStoreClient::connect({"127.0.0.1", s->port()}, "not-the-token", deadline_in(5s));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().kind, ErrorKind::auth) << wrong.error().message();

  // A "server" that answers the hello with an HTTP error page: not our protocol.
  uint16_t port = 0;
  int lfd = silent_listener(&port);
  ASSERT_GE(lfd, 0);
  std::thread http([lfd] {
    int fd = ::accept(lfd, nullptr, nullptr);
    const char page[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
    [[maybe_unused]] auto n = ::send(fd, page, sizeof page - 1, MSG_NOSIGNAL);
    std::this_thread::sleep_for(300ms);
    ::close(fd);
  });
  auto garbage = TcpStoreClient::connect({"127.0.0.1", port}, kToken, deadline_in(5s));
  http.join();
  ::close(lfd);
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.error().kind, ErrorKind::protocol) << garbage.error().message();
}

TEST(EtcdStoreDeadline, CallsToASilentGatewayTimeOut) {
  uint16_t port = 0;
  int fd = silent_listener(&port);
  ASSERT_GE(fd, 0);
  EtcdStore etcd({"127.0.0.1", port}, "", "t");
  std::string peer = "127.0.0.1:" + std::to_string(port);
  expect_timeout(
      "set", [&](Deadline d) { return error_of(etcd.set("k", "v", d)); }, peer);
  expect_timeout(
      "add", [&](Deadline d) { return error_of(etcd.add("n", 1, d)); }, peer);
  expect_timeout(
      "check", [&](Deadline d) { return error_of(etcd.check({"k"}, d)); }, peer);
  expect_timeout(
      "remove", [&](Deadline d) { return error_of(etcd.remove("k", d)); }, peer);
  expect_timeout(
      "list", [&](Deadline d) { return error_of(etcd.list("", d)); }, peer);
  ::close(fd);
}

}  // namespace
}  // namespace dd::rendezvous
