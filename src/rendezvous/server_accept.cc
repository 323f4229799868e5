// A shard's accept: take every queued connection of one listener, refuse past the cap on all connections
// (server_admission.h; an address paused for wrong tokens is refused in the handshake, with the pause named),
// drop the oldest stranger (of the newcomer's address or of all) when too many are authenticating (posted to
// the shard that holds it).
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rendezvous/auth.h"
#include "rendezvous/server_state.h"
#include "rendezvous/socket_io.h"

namespace dd::rendezvous {

namespace {

// "198.18.0.2" from "198.18.0.2:41234", "::1" from "[::1]:41234".
std::string ip_of(const std::string& peer) {
  if (peer.starts_with('[')) return peer.substr(1, peer.find(']') - 1);
  return peer.substr(0, peer.rfind(':'));
}

}  // namespace

void Shard::accept_all(int listen_fd) {
  while (true) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if ((errno == EMFILE || errno == ENFILE) && spare_fd >= 0) {
        // Out of descriptors: accept with the spare one and close at once, so the listen queue drains.
        ::close(spare_fd);
        int tmp = ::accept(listen_fd, nullptr, nullptr);
        if (tmp >= 0) ::close(tmp);
        spare_fd = ::eventfd(0, EFD_CLOEXEC);  // the spare again: a descriptor, no file opened
        srv.log_event("out of file descriptors: refused a client (raise ulimit -n on the master)");
        continue;
      }
      return;  // EAGAIN or a transient error: level-triggered epoll calls again
    }
    std::string peer = addr_name(ss);
    adopt(fd, peer, ip_of(peer));
  }
}

uint64_t Shard::adopt(int fd, std::string peer, std::string ip) {
  uint64_t id = srv.next_id.fetch_add(1);
  auto verdict = srv.admission->admit(ip, index, id);
  if (!verdict.refusal.empty()) {
    srv.log_event(fmt::format("refused {}: {}", peer, verdict.refusal));
    srv.count(&ServerStats::refused_cap);
    ::close(fd);
    return 0;
  }
  if (auto e = verdict.evict) {
    Posted p;
    p.shard = e->shard;
    p.conn = e->conn;
    p.drop_reason =
        e->same_address
            ? fmt::format(
                  "oldest connection from {} not authenticated yet (the cap per address), "
                  "dropped for a newcomer from there",
                  ip)
            : fmt::format("oldest of {} connections not authenticated yet, dropped for a newcomer",
                          e->pending);
    srv.count(&ServerStats::refused_cap);
    for (auto& mine : srv.dispatch({std::move(p)}, index)) deliver(mine);
  }
  // TCP_NODELAY comes from the listener (Linux copies it to accepted sockets).
  auto c = std::make_unique<Conn>(srv.opt.limits);
  c->id = id;
  c->fd = fd;
  c->peer = std::move(peer);
  c->peer_ip = std::move(ip);
  c->handshake_deadline = Clock::now() + srv.opt.handshake_timeout;
  handshakes.insert({c->handshake_deadline, c->id});
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = c->id;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
  srv.count(&ServerStats::accepted);
  Conn& conn = *conns.emplace(id, std::move(c)).first->second;
  // The challenge goes out at once, not after the client's hello: a client that finds it waiting sends
  // hello and proof together, one round trip and one wake-up fewer per connection (server_handshake.cc).
  conn.server_nonce = random_bytes(32);
  wire::Message ch;
  ch.op = wire::Op::kChallenge;
  ch.nonce = conn.server_nonce;
  send(conn, ch);
  flush(conn);
  return id;
}

// The connection leaves the handshake (authenticated or closed): it no longer counts against the caps.
void Shard::end_handshake(Conn& c) {
  if (handshakes.erase({c.handshake_deadline, c.id})) srv.admission->left_handshake(c.id);
}

}  // namespace dd::rendezvous
