// TcpStoreClient::pipeline: every request of a batch in one write and every answer read behind it (a
// hand-made master that answers nothing until it has read them all proves it), large values in one batch,
// the proof riding with a batch, and a value over the cap refused before anything is sent.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <thread>

#include "rendezvous/tcp_test_util.h"

namespace dd::rendezvous::testing {
namespace {

// The master reads hello, proof and all three requests before it answers anything: a client that waited for
// an answer between requests would leave it waiting (its reads give up after 3 s and the test fails).
TEST(StorePipeline, EveryRequestGoesInOneWriteBeforeAnyAnswer) {
  uint16_t port = 0;
  int lfd = silent_listener(&port);
  ASSERT_GE(lfd, 0);
  std::vector<wire::Op> seen;
  std::thread master([&] {
    int fd = ::accept(lfd, nullptr, nullptr);
    if (fd < 0) return;
    timeval tv{3, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    wire::Message ch;
    ch.op = wire::Op::kChallenge;
    ch.nonce = std::string(32, 's');
    std::string out = wire::encode(ch);
    ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
    wire::FrameReader reader;
    std::vector<wire::Message> frames;
    char buf[4096];
    while (frames.size() < 5) {
      wire::Parsed p = reader.next();
      if (p.state == wire::Parsed::kFrame) {
        frames.push_back(std::move(p.message));
        continue;
      }
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;  // the client stopped sending before the last request: not one batch
      reader.feed(buf, static_cast<size_t>(n));
    }
    for (const auto& f : frames) seen.push_back(f.op);
    if (frames.size() == 5) {
      wire::Message ok, integer, verdict;
      verdict.op = wire::Op::kAuthResult;
      verdict.number = 1;
      verdict.proof = server_proof(kToken, frames[0].nonce, ch.nonce);
      ok.op = wire::Op::kOk;
      integer.op = wire::Op::kInteger;
      integer.number = 7;
      out = wire::encode(verdict) + wire::encode(ok) + wire::encode(integer) + wire::encode(ok);
      ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
    }
    while (::recv(fd, buf, sizeof buf, 0) > 0) {
    }  // until the client hangs up
    ::close(fd);
  });
  auto c = TcpStoreClient::connect({"127.0.0.1", port}, kToken, deadline_in(5s), deferred_verdict());
  ASSERT_TRUE(c.ok()) << c.error().message();
  auto r =
      (*c)->pipeline({StoreOp::set("a", "1"), StoreOp::add("n", 1), StoreOp::set("b", "2")}, deadline_in(5s));
  c = Error::invalid("closed");  // hang up, so the master's last read returns
  master.join();
  ::close(lfd);
  const std::vector<wire::Op> expected{wire::Op::kHello, wire::Op::kAuth, wire::Op::kSet, wire::Op::kAdd,
                                       wire::Op::kSet};
  EXPECT_EQ(seen, expected);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(*r, (std::vector<int64_t>{0, 7, 0}));
}

// Three values of 3 MiB in one batch are 9 MiB in flight, more than the server buffers for one frame: it
// carries out each frame as it completes instead of taking the batch for a flood.
TEST(StorePipeline, LargeValuesInOneBatch) {
  auto s = serve();
  auto c = TcpStoreClient::connect({"127.0.0.1", s->port()}, kToken, deadline_in(5s), deferred_verdict());
  ASSERT_TRUE(c.ok()) << c.error().message();
  std::vector<StoreOp> ops;
  for (char ch : {'x', 'y', 'z'}) ops.push_back(StoreOp::set(std::string(1, ch), std::string(3u << 20, ch)));
  ops.push_back(StoreOp::add("n", 1));
  auto r = (*c)->pipeline(ops, deadline_in(10s));
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->back(), 1);
  auto z = (*c)->get("z", deadline_in(5s));
  ASSERT_TRUE(z.ok()) << z.error().message();
  EXPECT_EQ(*z, std::string(3u << 20, 'z'));
  EXPECT_EQ(s->stats().dropped_bad_input, 0u);
}

TEST(StorePipeline, WrongTokenFailsTheBatchAndRunsNothing) {
  auto s = serve();
  auto c =
      TcpStoreClient::connect({"127.0.0.1", s->port()}, "not-the-token", deadline_in(5s), deferred_verdict());
  ASSERT_TRUE(c.ok()) << c.error().message();
  auto r = (*c)->pipeline({StoreOp::set("a", "1"), StoreOp::add("n", 1)}, deadline_in(5s));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::auth);
  auto other = client(s->port());
  ASSERT_NE(other, nullptr);
  auto have = other->check({"a", "n"}, deadline_in(5s));
  ASSERT_TRUE(have.ok()) << have.error().message();
  EXPECT_EQ(*have, (std::vector<bool>{false, false}));
}

TEST(StorePipeline, ValueOverTheCapIsRefusedBeforeAnythingIsSent) {
  auto s = serve();
  auto c = client(s->port());
  ASSERT_NE(c, nullptr);
  auto r = c->pipeline({StoreOp::set("a", "1"), StoreOp::set("big", std::string((4u << 20) + 1, 'b'))},
                       deadline_in(5s));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::invalid);
  EXPECT_NE(r.error().what.find("over the cap"), std::string::npos) << r.error().what;
  auto have = c->check({"a"}, deadline_in(5s));  // nothing ran, and the connection is fine
  ASSERT_TRUE(have.ok()) << have.error().message();
  EXPECT_FALSE(have->at(0));
}

}  // namespace
}  // namespace dd::rendezvous::testing
