// TcpStoreClient: connect + mutual HMAC authentication, then request/answer over the store's wire protocol.
#include "rendezvous/tcp_store_client.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "rendezvous/auth.h"
#include "rendezvous/lockout.h"

namespace dd::rendezvous {

using wire::Message;
using wire::Op;

TcpStoreClient::TcpStoreClient(int fd, HostPort server, std::string token, ClientOptions options)
    : fd_(fd),
      server_(std::move(server)),
      token_(std::move(token)),
      peer_(server_.str()),
      opt_(options),
      reader_(options.limits) {}

TcpStoreClient::~TcpStoreClient() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<TcpStoreClient>> TcpStoreClient::connect(const HostPort& server,
                                                                const std::string& token, Deadline deadline,
                                                                ClientOptions options) {
  if (token.empty())
    return Error::invalid(
        fmt::format("no job token to join the store at {} (set DISTDOCTOR_TOKEN or pass "
                    "--token-file, the same on every node)",
                    server.str()));
  while (true) {
    auto fd = connect_with_retries(server, deadline, options.connect);
    if (!fd) return fd.error();
    std::unique_ptr<TcpStoreClient> c(new TcpStoreClient(*fd, server, token, options));
    auto hs = c->handshake(deadline);
    if (hs) return c;
    if (wait_out_lockout(hs.error(), deadline)) continue;
    // A master that is starting (or overloaded) may drop us mid-handshake: retry those, not a refusal.
    bool retry = hs.error().kind == ErrorKind::closed;
    if (!retry || Clock::now() + std::chrono::milliseconds(50) >= deadline) return hs.error();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

bool TcpStoreClient::wait_out_lockout(const Error& e, Deadline deadline) {
  if (e.kind != ErrorKind::auth) return false;
  auto lock = find_lockout(e.what);
  if (!lock) return false;
  const auto until = Clock::now() + std::chrono::seconds(lock->seconds) + std::chrono::milliseconds(100);
  if (until >= deadline) return false;
  std::this_thread::sleep_until(until);
  return true;
}

Status TcpStoreClient::reconnect(Deadline deadline) {
  ::close(fd_);
  fd_ = -1;
  reader_ = wire::FrameReader(opt_.limits);
  unsent_.clear();
  verdict_.reset();
  auto fd = connect_with_retries(server_, deadline, opt_.connect);
  if (!fd) return fd.error();
  fd_ = *fd;
  return handshake(deadline);
}

Status TcpStoreClient::handshake(Deadline deadline) {
  const std::string& token = token_;
  Message hello;
  hello.op = Op::kHello;
  hello.nonce = random_bytes(32);
  const std::string hello_frame = wire::encode(hello);
  // The master sends its challenge at accept: wait for it and send hello and proof in one write. A master
  // that waits for our hello first (distdoctor before the challenge moved) gets it after challenge_wait.
  auto ch = read_frame(std::min(deadline, Clock::now() + opt_.challenge_wait));
  bool hello_sent = false;
  if (!ch && ch.error().kind == ErrorKind::timeout && Clock::now() < deadline) {
    if (auto s = send_all(fd_, hello_frame, deadline, peer_); !s) return s;
    hello_sent = true;
    ch = read_frame(deadline);
  }
  if (!ch) return ch.error();
  if (ch->op == Op::kError)
    return Error::protocol(fmt::format("store at {} refused us: {}", peer_, ch->value), peer_);
  if (ch->op != Op::kChallenge || ch->magic != wire::kMagic)
    return Error::protocol(
        fmt::format("{} is not a distdoctor store (unexpected {} frame)", peer_, wire::op_name(ch->op)),
        peer_);
  Message auth;
  auth.op = Op::kAuth;
  auth.proof = client_proof(token, hello.nonce, ch->nonce);
  std::string frames = hello_sent ? wire::encode(auth) : hello_frame + wire::encode(auth);
  std::string expected = server_proof(token, hello.nonce, ch->nonce);
  if (opt_.verdict_with_first_answer) {  // call() sends the frames with the first request
    unsent_ = std::move(frames);
    verdict_ = std::move(expected);
    return ok_status();
  }
  if (auto s = send_all(fd_, frames, deadline, peer_); !s) return s;
  auto res = read_frame(deadline);
  if (!res) return res.error();
  return check_verdict(*res, expected);
}

// The master's verdict, and its proof that it knows the token too (a stranger never gets one).
Status TcpStoreClient::check_verdict(const Message& res, const std::string& expected_proof) const {
  if (res.op != Op::kAuthResult || !res.number) {
    std::string why = res.op == Op::kAuthResult || res.op == Op::kError ? res.value : "unexpected answer";
    // Only an auth-result frame is the master's verdict on our token; anything else is a protocol fault.
    auto kind = res.op == Op::kAuthResult ? ErrorKind::auth : ErrorKind::protocol;
    return Error::make(kind, fmt::format("{} (master {})", why, peer_), peer_, EACCES);
  }
  if (!proofs_equal(res.proof, expected_proof))
    return Error::auth(fmt::format("{} (master {} accepted us but could not prove it knows the token: it is "
                                   "not this job's master)",
                                   kWrongTokenMessage, peer_),
                       peer_, EACCES);
  return ok_status();
}

Result<Message> TcpStoreClient::read_frame(Deadline deadline) {
  char buf[16384];
  bool first = true;
  while (true) {
    wire::Parsed p = reader_.next();
    if (p.state == wire::Parsed::kFrame) return std::move(p.message);
    if (p.state == wire::Parsed::kBad)
      return Error::protocol(fmt::format("store at {} sent a bad frame: {}", peer_, p.reason), peer_, EPROTO);
    // Right after a request the answer is rarely there yet: poll first and save a recv that would say EAGAIN.
    auto n = recv_some(fd_, buf, sizeof buf, deadline, peer_, first);
    first = false;
    if (!n) return n.error();
    reader_.feed(buf, *n);
  }
}

Result<std::vector<Message>> TcpStoreClient::exchange(std::span<const Message> reqs, Deadline io_deadline) {
  if (broken_) return *broken_;
  // A deadline that passed before anything was sent: refuse this call, but the connection is intact (a
  // failed send or read below leaves the protocol in an unknown state, so those break it for good). Once
  // sent, a request gets at least 1 s for its answer: a deadline a few ms away must not break a healthy
  // connection that every later call (the verdict, the cleanup) still needs.
  const auto now = Clock::now();
  if (now >= io_deadline)
    return Error::make(ErrorKind::timeout,
                       fmt::format("store at {}: the deadline passed before the request", peer_), peer_);
  io_deadline = std::max(io_deadline, now + std::chrono::seconds(1));
  auto fail = [&](Error e) {
    broken_ = Error::closed("store connection unusable after an earlier failure: " + e.message(), peer_);
    ::shutdown(fd_, SHUT_RDWR);
    return e;
  };
  std::string frames;
  for (const auto& req : reqs) frames += wire::encode(req);
  bool sent = false;
  while (verdict_) {  // hello + proof go in front of the requests; the verdict comes in front of the answers
    std::string out = std::move(unsent_) + frames;
    unsent_.clear();
    Status st = send_all(fd_, out, io_deadline, peer_);
    if (st) {
      auto v = read_frame(io_deadline);
      st = v ? check_verdict(*v, *verdict_) : Status(v.error());
    }
    if (st) {
      verdict_.reset();
      sent = true;
      break;
    }
    // Dropped before its verdict (starting or overloaded master), or locked out for a pause that ends in
    // time: it never ran the requests, so send them again.
    const bool locked = wait_out_lockout(st.error(), io_deadline);
    bool retry = locked || (st.error().kind == ErrorKind::closed &&
                            Clock::now() + std::chrono::milliseconds(50) < io_deadline);
    if (!retry) return fail(st.error());
    if (!locked) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (auto s = reconnect(io_deadline); !s) return fail(s.error());
  }
  if (!sent)
    if (auto s = send_all(fd_, frames, io_deadline, peer_); !s) return fail(s.error());
  std::vector<Message> answers;
  answers.reserve(reqs.size());
  for (size_t i = 0; i < reqs.size(); ++i) {
    auto r = read_frame(io_deadline);
    if (!r) return fail(r.error());
    answers.push_back(std::move(*r));
  }
  return answers;
}

Result<Message> TcpStoreClient::call(const Message& req, Deadline io_deadline) {
  auto a = exchange({&req, 1}, io_deadline);
  if (!a) return a.error();
  if (a->front().op == Op::kError) return refused(a->front());
  return std::move(a->front());
}

// The server refused one request (store full, not a counter, too many keys): the connection is fine.
Error TcpStoreClient::refused(const Message& error_frame) const {
  return Error::make(ErrorKind::other, fmt::format("store at {}: {}", peer_, error_frame.value), peer_);
}

Result<Message> TcpStoreClient::blocking_call(Message req, Deadline deadline) {
  auto now = Clock::now();
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
  if (left.count() < 0) left = std::chrono::milliseconds(0);
  // The server answers "timeout" a little before our deadline, so its answer (naming what is missing) arrives
  // before we give up on the socket.
  auto margin = std::min(std::chrono::milliseconds(250), left / 5);
  req.number = (left - margin).count();
  auto io_deadline = std::max(deadline, now + std::chrono::seconds(1));
  return call(req, io_deadline);
}

}  // namespace dd::rendezvous
