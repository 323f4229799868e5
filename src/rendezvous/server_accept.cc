// TcpStoreServer's admission: accept every queued connection, refuse past the caps (all connections, and
// not-yet-authenticated ones per peer address), drop the oldest stranger when too many are authenticating.
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

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

void TcpStoreServer::Impl::accept_all() {
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
        spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        log_event("out of file descriptors: refused a client (raise ulimit -n on the master)");
        continue;
      }
      return;  // EAGAIN or a transient error: level-triggered epoll calls again
    }
    std::string peer = addr_name(ss), ip = ip_of(peer);
    if (!admit(ip, peer)) {
      ::close(fd);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_unique<Conn>(opt.limits);
    c->id = next_id++;
    c->fd = fd;
    c->peer = std::move(peer);
    c->peer_ip = std::move(ip);
    c->handshake_deadline = Clock::now() + opt.handshake_timeout;
    handshakes.insert({c->handshake_deadline, c->id});
    ++pending_by_ip[c->peer_ip];
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = c->id;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    {
      std::lock_guard lock(mu);
      ++st.accepted;
      st.open_connections = conns.size() + 1;
    }
    conns.emplace(c->id, std::move(c));
  }
}

// False: refuse this newcomer. May drop the oldest unauthenticated connection to make room.
bool TcpStoreServer::Impl::admit(const std::string& ip, const std::string& peer) {
  std::string refusal;
  if (conns.size() >= opt.max_connections)
    refusal = fmt::format("{} connections open (the cap)", conns.size());
  else if (auto it = pending_by_ip.find(ip);
           it != pending_by_ip.end() && it->second >= opt.max_pending_per_peer)
    refusal =
        fmt::format("{} connections from {} not authenticated yet (the cap per address)", it->second, ip);
  if (!refusal.empty()) {
    log_event(fmt::format("refused {}: {}", peer, refusal));
    std::lock_guard lock(mu);
    ++st.refused_cap;
    return false;
  }
  if (handshakes.size() >= opt.max_pending && !handshakes.empty()) {
    drop(handshakes.begin()->second,
         fmt::format("oldest of {} connections not authenticated yet, dropped for a newcomer",
                     handshakes.size()));
    std::lock_guard lock(mu);
    ++st.refused_cap;
  }
  return true;
}

// The connection leaves the handshake (authenticated or closed): it no longer counts against the caps.
void TcpStoreServer::Impl::end_handshake(Conn& c) {
  if (!handshakes.erase({c.handshake_deadline, c.id})) return;
  if (auto it = pending_by_ip.find(c.peer_ip); it != pending_by_ip.end() && --it->second == 0)
    pending_by_ip.erase(it);
}

}  // namespace dd::rendezvous
