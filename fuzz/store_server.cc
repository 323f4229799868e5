// Fuzz target: the store server's handshake and key-value operations (rendezvous/server_*.cc) on byte
// streams, without a listening socket or loop thread: one shard's state is driven directly and each
// connection is one end of an in-process socketpair, adopted as accept does it. The first byte picks who
// talks: two strangers, one client that authenticated (the harness does hello/auth with the token) and a
// stranger, or two authenticated clients; the rest is records of (1 control byte: connection and length, then
// up to 128 bytes) written to that connection. At the end every parked wait is expired as the loop would, and
// then every connection closed. Checks: no crash; strangers never change a key nor get an answer other than
// the handshake's (and never a proof); the master proves it knows the token only to a client that proved it
// first; every answer is a frame the client accepts; after the last connection closes no wait, watcher or
// deadline is left; the bytes the store counts are the bytes it holds, within its byte caps (set small here).
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rendezvous/auth.h"
#include "rendezvous/server_state.h"

using namespace dd::rendezvous;
using wire::Message;
using wire::Op;

namespace {

const std::string kToken = "fuzz-token";

void check(bool ok) {
  if (!ok) __builtin_trap();
}

struct Client {
  uint64_t id = 0;
  int peer = -1;  // our end of the socketpair
  bool authenticated = false;
  std::string answers;  // bytes the server sent
};

// Everything the server wrote to this client so far; the connection may be gone.
void drain(Client& c) {
  char buf[65536];
  ssize_t n;
  while ((n = ::recv(c.peer, buf, sizeof buf, MSG_DONTWAIT)) > 0)
    c.answers.append(buf, static_cast<size_t>(n));
}

void write_to(Shard& s, Client& c, const std::string& bytes) {
  auto it = s.conns.find(c.id);
  if (it == s.conns.end()) return;  // dropped
  ::send(c.peer, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  s.on_readable(*it->second);
  drain(c);
}

// A connection as accept_all() makes it (Shard::adopt), with a socketpair instead of an accepted socket.
Client connect(Shard& s) {
  int sv[2];
  check(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) == 0);
  Client client{s.adopt(sv[0], "fuzz", "fuzz"), sv[1]};
  check(client.id != 0);
  drain(client);  // the challenge, sent at accept
  return client;
}

// Every complete frame in `bytes`; traps on one the client's parser refuses.
std::vector<Message> frames(const std::string& bytes) {
  wire::FrameReader r;
  r.feed(bytes.data(), bytes.size());
  std::vector<Message> out;
  for (wire::Parsed p = r.next(); p.state != wire::Parsed::kNeedMore; p = r.next()) {
    check(p.state == wire::Parsed::kFrame);
    out.push_back(std::move(p.message));
  }
  return out;
}

// challenge (at accept) -> hello and auth in one write -> accepted, as the client does it.
void authenticate(Shard& s, Client& c) {
  auto got = frames(c.answers);
  check(got.size() == 1 && got[0].op == Op::kChallenge);
  Message hello;
  hello.op = Op::kHello;
  hello.nonce = std::string(16, 'n');
  Message auth;
  auth.op = Op::kAuth;
  auth.proof = client_proof(kToken, hello.nonce, got[0].nonce);
  write_to(s, c, wire::encode(hello) + wire::encode(auth));
  got = frames(c.answers);
  check(got.size() == 2 && got[1].op == Op::kAuthResult && got[1].number == 1);
  check(got[1].proof == server_proof(kToken, hello.nonce, got[0].nonce));  // the master proves second
  c.authenticated = true;
  c.answers.clear();
}

// What the loop does when time passes: parked waits time out, resumed connections go on.
void expire_waits(Shard& s) {
  while (!s.wait_deadlines.empty()) s.finish_waiter(s.wait_deadlines.begin()->second, End::kTimedOut);
  while (!s.resume.empty()) {
    uint64_t id = s.resume.back();
    s.resume.pop_back();
    if (auto it = s.conns.find(id); it != s.conns.end()) s.process(*it->second);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  TcpStoreServer::Impl srv;
  srv.opt.token = kToken;
  srv.opt.max_total_keys = 64;
  srv.opt.max_total_bytes = 3072;
  srv.opt.max_bytes_per_client = 2048;
  srv.admission = std::make_unique<Admission>(
      srv.opt.max_connections, srv.opt.max_pending, srv.opt.max_pending_per_peer,
      Admission::Guessing{srv.opt.wrong_tokens_per_pause, srv.opt.wrong_token_pause});
  srv.shards.push_back(std::make_unique<Shard>(srv, 0));
  Shard& s = *srv.shards[0];
  s.epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  std::vector<Client> clients = {connect(s), connect(s)};
  int mode = data[0] % 3;  // 0: two strangers, 1: client 0 authenticated, 2: both
  for (int i = 0; i < mode; i++) authenticate(s, clients[i]);
  for (size_t pos = 1; pos < size;) {
    Client& c = clients[data[pos] & 1];
    size_t n = std::min<size_t>((data[pos] >> 1) + 1, size - pos - 1);
    write_to(s, c, std::string(reinterpret_cast<const char*>(data) + pos + 1, n));
    pos += 1 + n;
  }
  expire_waits(s);
  for (auto& c : clients) drain(c);
  uint64_t held = 0;
  for (const auto& [k, v] : srv.kv) held += k.size() + v.size();
  check(held == srv.kv_bytes && held <= srv.opt.max_total_bytes);
  for (const auto& [id, conn] : s.conns) check(conn->stored_bytes <= srv.opt.max_bytes_per_client);
  if (mode == 0) check(srv.kv.empty() && srv.st.authenticated == 0);
  for (auto& c : clients) {
    for (const Message& m : frames(c.answers))
      if (!c.authenticated)  // a stranger gets handshake answers only, and never a proof to guess against
        check((m.op == Op::kChallenge || m.op == Op::kAuthResult || m.op == Op::kError) && m.proof.empty());
    if (s.conns.count(c.id)) s.close_conn(c.id);
    ::close(c.peer);
  }
  check(s.conns.empty() && srv.waiters.empty() && srv.watchers.empty() && s.wait_deadlines.empty());
  check(srv.admission->open() == 0);
  ::close(s.epoll_fd);
  return 0;
}
