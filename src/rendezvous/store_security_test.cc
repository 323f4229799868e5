// The store's defences: the client proves first (no proof for strangers), an impostor master is refused, an
// empty token is refused, caps on not-yet-authenticated connections keep real nodes served (also from the
// strangers' own address), wrong tokens pause their address, the event log is rate-limited, and the master
// listens only on the address it was given.
#include <gtest/gtest.h>

#include <thread>

#include "rendezvous/event_log_limiter.h"
#include "rendezvous/lockout.h"
#include "rendezvous/open_store.h"
#include "rendezvous/tcp_test_util.h"

namespace dd::rendezvous::testing {
namespace {

wire::Message read_message(int fd) {
  wire::FrameReader r;
  char buf[4096];
  for (wire::Parsed p = r.next();; p = r.next()) {
    if (p.state == wire::Parsed::kFrame) return p.message;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return wire::Message{};
    r.feed(buf, static_cast<size_t>(n));
  }
}

void send_message(int fd, const wire::Message& m) {
  std::string f = wire::encode(m);
  ASSERT_EQ(::send(fd, f.data(), f.size(), MSG_NOSIGNAL), static_cast<ssize_t>(f.size()));
}

wire::Message hello() {
  wire::Message h;
  h.op = wire::Op::kHello;
  h.nonce = std::string(32, 'c');
  return h;
}

TEST(StoreSecurity, StrangerNeverSeesAProof) {
  auto s = serve();
  int fd = raw_connect(s->port());
  ASSERT_GE(fd, 0);
  wire::Message ch = read_message(fd);  // the server speaks first: its challenge, before any hello
  send_message(fd, hello());
  ASSERT_EQ(ch.op, wire::Op::kChallenge);
  EXPECT_TRUE(ch.proof.empty());  // nothing to test token guesses against offline
  wire::Message auth;
  auth.op = wire::Op::kAuth;
  auth.proof = client_proof("a guess", hello().nonce, ch.nonce);
  send_message(fd, auth);
  wire::Message res = read_message(fd);
  EXPECT_EQ(res.op, wire::Op::kAuthResult);
  EXPECT_EQ(res.number, 0);
  EXPECT_TRUE(res.proof.empty());
  EXPECT_TRUE(closed_by_server(fd));
  ::close(fd);
}

// A master that accepts anyone but does not know the token: the client must not trust it.
TEST(StoreSecurity, ImpostorMasterIsRefused) {
  uint16_t port = 0;
  int lfd = silent_listener(&port);
  ASSERT_GE(lfd, 0);
  std::thread impostor([lfd] {
    int fd = ::accept(lfd, nullptr, nullptr);
    if (fd < 0) return;
    read_message(fd);
    wire::Message ch;
    ch.op = wire::Op::kChallenge;
    ch.nonce = std::string(32, 's');
    send_message(fd, ch);
    read_message(fd);
    wire::Message ok;
    ok.op = wire::Op::kAuthResult;
    ok.number = 1;
    ok.proof = std::string(32, 'x');
    send_message(fd, ok);
    read_message(fd);  // until the client hangs up
    ::close(fd);
  });
  ClientOptions quick;
  quick.challenge_wait = 100ms;  // this master waits for hello before its challenge
  auto c = TcpStoreClient::connect({"127.0.0.1", port}, kToken, deadline_in(5s), quick);
  impostor.join();
  ::close(lfd);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().kind, ErrorKind::auth);
  EXPECT_NE(c.error().what.find("not this job's master"), std::string::npos) << c.error().what;
}

// A master of the earlier handshake order (challenge only after hello) that knows the token: the client
// sends hello on its own after challenge_wait and is served.
TEST(StoreSecurity, MasterThatWaitsForHelloStillServes) {
  uint16_t port = 0;
  int lfd = silent_listener(&port);
  ASSERT_GE(lfd, 0);
  bool proof_ok = false;
  std::thread old_master([lfd, &proof_ok] {
    int fd = ::accept(lfd, nullptr, nullptr);
    if (fd < 0) return;
    wire::Message h = read_message(fd);
    wire::Message ch;
    ch.op = wire::Op::kChallenge;
    ch.nonce = std::string(32, 's');
    send_message(fd, ch);
    wire::Message auth = read_message(fd);
    proof_ok = h.op == wire::Op::kHello && auth.op == wire::Op::kAuth &&
               proofs_equal(auth.proof, client_proof(kToken, h.nonce, ch.nonce));
    wire::Message ok;
    ok.op = wire::Op::kAuthResult;
    ok.number = proof_ok ? 1 : 0;
    ok.proof = server_proof(kToken, h.nonce, ch.nonce);
    send_message(fd, ok);
    read_message(fd);  // until the client hangs up
    ::close(fd);
  });
  ClientOptions quick;
  quick.challenge_wait = 100ms;
  auto c = TcpStoreClient::connect({"127.0.0.1", port}, kToken, deadline_in(5s), quick);
  bool connected = c.ok();
  c = Error::invalid("closed");  // hang up, so the old master's last read returns
  old_master.join();
  ::close(lfd);
  EXPECT_TRUE(proof_ok);
  EXPECT_TRUE(connected);
}

TEST(StoreSecurity, EmptyTokenIsRefused) {
  ServerOptions so;
  so.bind_host = "127.0.0.1";
  auto s = TcpStoreServer::start(so);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().what.find("empty job token"), std::string::npos) << s.error().what;
  auto real = serve();
  auto c = TcpStoreClient::connect({"127.0.0.1", real->port()}, "", deadline_in(2s));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().what.find("DISTDOCTOR_TOKEN"), std::string::npos) << c.error().what;
  EXPECT_EQ(real->stats().accepted, 0u);  // refused before any connect
}

TEST(StoreSecurity, IdleStrangersCannotKeepANodeOutOfItsOwnAddress) {
  ServerOptions so;
  so.max_pending_per_peer = 4;
  so.threads = 1;  // one accept queue: connections are admitted in the order they connected
  auto s = serve(so);
  std::vector<int> idle;
  for (int i = 0; i < 12; ++i) idle.push_back(raw_connect(s->port(), "127.0.0.1"));
  for (int fd : idle) ASSERT_GE(fd, 0);
  // A real node from the strangers' own address: the oldest stranger there makes room for it (it was refused
  // while 4 strangers held the address's slots, and 400 reopened ones kept a node out for 38 s).
  auto t0 = Clock::now();
  auto real = client(s->port());
  ASSERT_TRUE(real);
  EXPECT_TRUE(real->set("k", "v", deadline_in(2s)).ok());
  EXPECT_LT(Clock::now() - t0, 1s);
  int closed = 0;
  for (int fd : idle) {
    timeval tv{0, 300000};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    closed += closed_by_server(fd) ? 1 : 0;
  }
  EXPECT_EQ(closed, 9);  // 12 strangers and the node passed a cap of 4: the 9 oldest strangers were dropped
  EXPECT_TRUE(closed_by_server(idle.front()));
  EXPECT_EQ(s->stats().refused_cap, 9u);
  EXPECT_TRUE(log_has(*s, "not authenticated yet (the cap per address)"));
  for (int fd : idle) ::close(fd);
}

TEST(StoreSecurity, WrongTokensPauseTheirAddress) {
  ServerOptions so;
  so.wrong_tokens_per_pause = 3;
  so.wrong_token_pause = 3000ms;  // also the window the 4 guesses must fall in: room for a loaded machine
  auto s = serve(so);             // kToken: short, so guessable: the pause holds for every token
  for (int i = 0; i < 4; ++i) {   // the fourth wrong token starts the pause
    auto c = TcpStoreClient::connect({"127.0.0.1", s->port()}, "guess-" + std::to_string(i), deadline_in(2s));
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.error().kind, ErrorKind::auth);
  }
  const auto paused_at = Clock::now();  // just after the pause began (at the fourth refusal)
  // The server logs the pause after it answered the fourth guess: on a loaded machine that comes a little
  // later.
  EXPECT_TRUE(log_soon(*s, "127.0.0.1 sent 4 wrong tokens within 3 s: its connections are refused for 3 s"));
  // In the pause neither a guess nor the right token is looked at: both are told they are locked out, with
  // the address and the seconds left (not a silent close that looks like a firewall), and give up when the
  // pause outlasts their deadline.
  for (const std::string& token : {std::string("guess-5"), kToken}) {
    auto c = TcpStoreClient::connect({"127.0.0.1", s->port()}, token, deadline_in(1s));
    ASSERT_FALSE(c.ok()) << token;
    EXPECT_EQ(c.error().kind, ErrorKind::auth) << c.error().message();
    auto lock = find_lockout(c.error().message());
    ASSERT_TRUE(lock) << c.error().message();
    EXPECT_EQ(lock->addr, "127.0.0.1");
    EXPECT_GE(lock->seconds, 1);
    EXPECT_LE(lock->seconds, 3);
  }
  EXPECT_EQ(s->stats().refused_token, 4u);
  EXPECT_TRUE(log_soon(*s, "rendezvous refused: too many wrong tokens from 127.0.0.1; locked out for"));
  // The right token with a deadline past the pause waits it out and gets in, not before (measured from the
  // pause's start: the steps above may take a while on a loaded machine).
  auto real = client(s->port());
  ASSERT_TRUE(real);
  EXPECT_TRUE(real->set("k", "v", deadline_in(2s)).ok());
  EXPECT_GT(Clock::now() - paused_at, 2500ms);
}

// A long random token cannot be guessed online at any rate, so the pause guards nothing: a stranger on the
// node's own address (a shared login node) sending wrong tokens cannot lock the real node out of its job.
TEST(StoreSecurity, ARightLongTokenGetsInDuringALockOut) {
  ServerOptions so;
  so.token = generate_token();
  so.wrong_tokens_per_pause = 2;
  so.wrong_token_pause = 20000ms;
  auto s = serve(so);
  for (int i = 0; i < 3; ++i)
    ASSERT_FALSE(TcpStoreClient::connect({"127.0.0.1", s->port()}, "guess", deadline_in(2s)).ok());
  EXPECT_TRUE(log_soon(*s, "127.0.0.1 sent 3 wrong tokens within 20 s"));
  auto wrong = TcpStoreClient::connect({"127.0.0.1", s->port()}, "guess", deadline_in(1s));
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(find_lockout(wrong.error().message())) << wrong.error().message();
  const auto t0 = Clock::now();
  auto real = TcpStoreClient::connect({"127.0.0.1", s->port()}, so.token, deadline_in(3s));
  ASSERT_TRUE(real.ok()) << real.error().message();
  EXPECT_TRUE((*real)->set("k", "v", deadline_in(2s)).ok());
  EXPECT_LT(Clock::now() - t0, 2s) << "admitted at once, not after the pause";
}

TEST(StoreSecurity, OldestStrangerMakesRoomForANewcomer) {
  ServerOptions so;
  so.max_pending = 8;
  so.threads = 1;  // one accept queue: connections are admitted in the order they connected
  auto s = serve(so);
  std::vector<int> idle;
  for (int i = 0; i < 20; ++i) {
    std::string src = "127.0.1." + std::to_string(10 + i);
    idle.push_back(raw_connect(s->port(), src.c_str()));
    ASSERT_GE(idle.back(), 0);
  }
  auto real = client(s->port());  // authenticates in well under the handshake deadline
  ASSERT_TRUE(real);
  EXPECT_TRUE(real->set("k", "v", deadline_in(2s)).ok());
  EXPECT_TRUE(closed_by_server(idle.front()));  // the oldest went first
  // 21 admitted, the real one authenticated, at most 8 strangers left waiting: 13 made room.
  EXPECT_EQ(s->stats().accepted, 21u);
  EXPECT_EQ(s->stats().authenticated, 1u);
  EXPECT_GE(s->stats().refused_cap, 13u);
  for (int fd : idle) ::close(fd);
}

TEST(StoreSecurity, ConnectionEventsAreRateLimited) {
  EventLogLimiter limiter(3, std::chrono::milliseconds(1000));
  Clock::time_point t0 = Clock::now();
  size_t logged = 0;
  for (int i = 0; i < 50; ++i) logged += limiter.admit("dropped " + std::to_string(i), t0).size();
  EXPECT_EQ(logged, 3u);
  auto next = limiter.admit("dropped later", t0 + std::chrono::milliseconds(1500));
  ASSERT_EQ(next.size(), 2u);
  EXPECT_NE(next[0].find("47 more connection events not logged"), std::string::npos) << next[0];
  EXPECT_EQ(next[1], "dropped later");
}

TEST(StoreSecurity, MasterListensOnlyOnItsAddress) {
  std::string token = generate_token();
  auto m = open_store("127.0.0.1:0", token, StoreRole::kMaster, deadline_in(5s));
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_TRUE(m->listen_note.empty());
  EXPECT_EQ(raw_connect(m->port, "127.0.0.1", "127.0.0.2"), -1);  // not on every address
  EXPECT_TRUE(open_store(m->url, token, StoreRole::kClient, deadline_in(2s)).ok());
  OpenOptions all;
  all.listen_all = true;
  auto every = open_store("127.0.0.1:0", token, StoreRole::kMaster, deadline_in(5s), all);
  ASSERT_TRUE(every.ok()) << every.error().message();
  int fd = raw_connect(every->port, "127.0.0.1", "127.0.0.2");
  EXPECT_GE(fd, 0);
  if (fd >= 0) ::close(fd);
  // An address this machine does not have (NAT, a service address): every address, said in a note.
  auto nat = open_store("198.18.250.250:0", token, StoreRole::kMaster, deadline_in(5s));
  ASSERT_TRUE(nat.ok()) << nat.error().message();
  EXPECT_NE(nat->listen_note.find("not an address of this machine"), std::string::npos) << nat->listen_note;
}

}  // namespace
}  // namespace dd::rendezvous::testing
