// TcpStoreServer's handshake: challenge (our nonce, sent at accept) and hello (the client's nonce), in either
// order -> auth (the client's proof) -> auth-result
// (with our proof, only for a client that proved it knows the job token: nobody can collect a proof to guess
// the token offline). Nothing else is accepted from a connection before it has proved it knows the token.
#include <fmt/format.h>

#include "rendezvous/auth.h"
#include "rendezvous/lockout.h"
#include "rendezvous/server_state.h"

namespace dd::rendezvous {

using wire::Message;
using wire::Op;

void Shard::handshake(Conn& c, Message& m) {
  if (c.state == Conn::kHello)
    on_hello(c, m);
  else
    on_auth(c, m);
}

// hello: check magic, version and nonce.
void Shard::on_hello(Conn& c, Message& m) {
  if (m.op != Op::kHello) {
    drop(c.id, fmt::format("sent {} before hello", wire::op_name(m.op)));
    return;
  }
  if (m.magic != wire::kMagic) {
    drop(c.id, fmt::format("bad magic 0x{:08x} (not a distdoctor store client)", m.magic));
    return;
  }
  if (m.version != wire::kVersion) {
    send(c,
         error_message(fmt::format("protocol version {} not supported (this master speaks {}); run the same "
                                   "distdoctor version on every node",
                                   m.version, wire::kVersion)));
    flush(c);
    drop(c.id, fmt::format("protocol version {} (server speaks {})", m.version, wire::kVersion));
    return;
  }
  if (m.nonce.size() < 16) {
    drop(c.id, fmt::format("client nonce of {} bytes is too short", m.nonce.size()));
    return;
  }
  c.client_nonce = m.nonce;  // our challenge went out at accept (server_accept.cc)
  c.state = Conn::kAuth;
}

// auth: the client's proof decides; a wrong one is answered, logged and the connection closed. From an
// address locked out for wrong tokens the answer names the lock-out, and the proof is not looked at unless
// the token resists guessing (lockout.h): then a right one still gets in.
void Shard::on_auth(Conn& c, Message& m) {
  if (m.op != Op::kAuth) {
    drop(c.id, fmt::format("sent {} before authenticating", wire::op_name(m.op)));
    return;
  }
  Message res;
  res.op = Op::kAuthResult;
  const std::string lockout = srv.admission->lockout(c.peer_ip);
  const bool right = (lockout.empty() || token_resists_guessing(srv.opt.token)) &&
                     proofs_equal(m.proof, client_proof(srv.opt.token, c.client_nonce, c.server_nonce));
  if (!lockout.empty() && !right) {
    res.number = 0;
    res.value = lockout;
    send(c, res);
    flush(c);
    srv.log_event(fmt::format("refused {}: {}", c.peer, lockout));
    srv.count(&ServerStats::refused_cap);
    close_conn(c.id);
    return;
  }
  if (!right) {
    res.number = 0;
    res.value = kWrongTokenMessage;
    send(c, res);
    flush(c);
    srv.log_event(fmt::format("{}: client {}", kWrongTokenMessage, c.peer));
    if (auto pause = srv.admission->wrong_token(c.peer_ip); !pause.empty()) srv.log_event(pause);
    srv.count(&ServerStats::refused_token);
    close_conn(c.id);
    return;
  }
  res.number = 1;
  res.proof = server_proof(srv.opt.token, c.client_nonce, c.server_nonce);
  send(c, res);
  c.state = Conn::kReady;
  end_handshake(c);
  srv.count(&ServerStats::authenticated);
}

}  // namespace dd::rendezvous
