// A joining node's proof rides with its first request (ClientOptions::verdict_with_first_answer): the
// master's verdict comes in front of the first answer, a wrong token fails that request, and a master that
// drops the connection before its verdict (it never ran the request) is reconnected to.
#include <gtest/gtest.h>

#include <thread>

#include "rendezvous/tcp_test_util.h"

namespace dd::rendezvous::testing {
namespace {

TEST(DeferredVerdict, ProofGoesWithTheFirstRequest) {
  auto s = serve();
  auto c = TcpStoreClient::connect({"127.0.0.1", s->port()}, kToken, deadline_in(5s), deferred_verdict());
  ASSERT_TRUE(c.ok()) << c.error().message();
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(s->stats().authenticated, 0u);  // nothing but the TCP connect and the challenge so far
  ASSERT_TRUE((*c)->set("k", "v", deadline_in(5s)));
  EXPECT_EQ(s->stats().authenticated, 1u);
  auto v = (*c)->get("k", deadline_in(5s));
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(*v, "v");
}

TEST(DeferredVerdict, WrongTokenFailsTheFirstRequest) {
  auto s = serve();
  auto c =
      TcpStoreClient::connect({"127.0.0.1", s->port()}, "not-the-token", deadline_in(5s), deferred_verdict());
  ASSERT_TRUE(c.ok()) << c.error().message();
  auto r = (*c)->add("claim", 1, deadline_in(5s));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::auth);
  EXPECT_NE(r.error().what.find(kWrongTokenMessage), std::string::npos) << r.error().what;
  EXPECT_FALSE((*c)->set("k", "v", deadline_in(5s)));  // the connection is not usable after a refusal
  auto other = client(s->port());
  ASSERT_NE(other, nullptr);
  auto seen = other->check({"claim"}, deadline_in(5s));
  ASSERT_TRUE(seen.ok()) << seen.error().message();
  EXPECT_FALSE(seen->at(0));  // the refused add never ran
  EXPECT_EQ(s->stats().refused_token, 1u);
}

// Frames read off one connection in order (a hand-made master sees hello, proof and request in one read).
struct FrameStream {
  int fd;
  wire::FrameReader reader;
  wire::Message next() {
    char buf[4096];
    for (wire::Parsed p = reader.next();; p = reader.next()) {
      if (p.state == wire::Parsed::kFrame) return p.message;
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return wire::Message{};
      reader.feed(buf, static_cast<size_t>(n));
    }
  }
};

std::string challenge_frame() {
  wire::Message ch;
  ch.op = wire::Op::kChallenge;
  ch.nonce = std::string(32, 's');
  return wire::encode(ch);
}

// The first connection is dropped after the request arrived, before any verdict; the second is served. The
// client must send its request again on the new connection and get its answer.
TEST(DeferredVerdict, DroppedBeforeTheVerdictIsRetried) {
  uint16_t port = 0;
  int lfd = silent_listener(&port);
  ASSERT_GE(lfd, 0);
  std::vector<wire::Op> first_conn, second_conn;
  std::thread master([&] {
    int fd = ::accept(lfd, nullptr, nullptr);
    if (fd < 0) return;
    std::string ch = challenge_frame();
    ::send(fd, ch.data(), ch.size(), MSG_NOSIGNAL);
    FrameStream a{fd, wire::FrameReader{wire::Limits{}}};
    for (int i = 0; i < 3; ++i) first_conn.push_back(a.next().op);
    ::close(fd);  // overloaded: gone before the verdict
    fd = ::accept(lfd, nullptr, nullptr);
    if (fd < 0) return;
    ::send(fd, ch.data(), ch.size(), MSG_NOSIGNAL);
    FrameStream b{fd, wire::FrameReader{wire::Limits{}}};
    wire::Message h = b.next(), auth = b.next(), req = b.next();
    second_conn = {h.op, auth.op, req.op};
    wire::Message ok;
    ok.op = wire::Op::kAuthResult;
    ok.number = proofs_equal(auth.proof, client_proof(kToken, h.nonce, std::string(32, 's'))) ? 1 : 0;
    ok.proof = server_proof(kToken, h.nonce, std::string(32, 's'));
    wire::Message answer;
    answer.op = wire::Op::kInteger;
    answer.number = 7;
    std::string out = wire::encode(ok) + wire::encode(answer);
    ::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
    b.next();  // until the client hangs up
    ::close(fd);
  });
  auto c = TcpStoreClient::connect({"127.0.0.1", port}, kToken, deadline_in(5s), deferred_verdict());
  ASSERT_TRUE(c.ok()) << c.error().message();
  auto r = (*c)->add("claim", 1, deadline_in(5s));
  c = Error::invalid("closed");  // hang up, so the master's last read returns
  master.join();
  ::close(lfd);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(*r, 7);
  const std::vector<wire::Op> expected{wire::Op::kHello, wire::Op::kAuth, wire::Op::kAdd};
  EXPECT_EQ(first_conn, expected);
  EXPECT_EQ(second_conn, expected);
}

}  // namespace
}  // namespace dd::rendezvous::testing
