// TcpStoreServer: epoll loop (accept, read, parse, answer), handshake, key-value state and parked waits.
#include "rendezvous/tcp_store_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "rendezvous/auth.h"
#include "rendezvous/memory_store.h"
#include "rendezvous/server_state.h"
#include "rendezvous/socket_io.h"

namespace dd::rendezvous {

Result<std::unique_ptr<TcpStoreServer>> TcpStoreServer::start(ServerOptions options) {
  raise_nofile_limit();
  auto impl = std::make_unique<Impl>();
  impl->opt = std::move(options);
  sockaddr_storage ss{};
  socklen_t len = 0;
  auto& host = impl->opt.bind_host;
  if (::inet_pton(AF_INET, host.c_str(), &reinterpret_cast<sockaddr_in*>(&ss)->sin_addr) == 1) {
    auto* in = reinterpret_cast<sockaddr_in*>(&ss);
    in->sin_family = AF_INET;
    in->sin_port = htons(impl->opt.port);
    len = sizeof(sockaddr_in);
  } else if (::inet_pton(AF_INET6, host.c_str(), &reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr) == 1) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(impl->opt.port);
    len = sizeof(sockaddr_in6);
  } else {
    return Error{fmt::format("store server: bind address '{}' is not an IP address", host)};
  }
  std::string where = addr_name(ss);
  int fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error::from_errno("store server: socket");
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0) {
    auto e = Error::from_errno("store server: bind " + where);
    ::close(fd);
    return e;
  }
  // The kernel caps the backlog at net.core.somaxconn; ask for the most it allows.
  if (::listen(fd, 65535) != 0) {
    auto e = Error::from_errno("store server: listen on " + where);
    ::close(fd);
    return e;
  }
  socklen_t slen = sizeof ss;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &slen);
  impl->port = ntohs(ss.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&ss)->sin_port
                                             : reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  impl->listen_fd = fd;
  impl->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  impl->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  impl->spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenId;
  ::epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
  ev.data.u64 = kWakeId;
  ::epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, impl->wake_fd, &ev);
  if (impl->opt.expected_clients) {
    std::ifstream in("/proc/sys/net/core/somaxconn");
    size_t somaxconn = 0;
    if (in >> somaxconn && somaxconn < impl->opt.expected_clients)
      impl->log(
          fmt::format("net.core.somaxconn is {} but {} clients are expected: connects past the listen queue "
                      "will be retried (sysctl -w net.core.somaxconn={})",
                      somaxconn, impl->opt.expected_clients, impl->opt.expected_clients));
  }
  auto* raw = impl.get();
  impl->thread = std::thread([raw] { raw->run(); });
  return std::unique_ptr<TcpStoreServer>(new TcpStoreServer(std::move(impl)));
}

TcpStoreServer::TcpStoreServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TcpStoreServer::~TcpStoreServer() { stop(); }

void TcpStoreServer::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(impl_->wake_fd, &one, sizeof one);
  if (impl_->thread.joinable()) impl_->thread.join();
  for (auto& [id, c] : impl_->conns) ::close(c->fd);
  impl_->conns.clear();
  for (int fd : {impl_->listen_fd, impl_->epoll_fd, impl_->wake_fd, impl_->spare_fd})
    if (fd >= 0) ::close(fd);
}

uint16_t TcpStoreServer::port() const { return impl_->port; }

std::vector<std::string> TcpStoreServer::keys(const std::string& prefix) const {
  std::lock_guard lock(impl_->mu);
  std::vector<std::string> out;
  for (auto it = impl_->kv.lower_bound(prefix); it != impl_->kv.end() && it->first.starts_with(prefix); ++it)
    out.push_back(it->first);
  return out;
}

std::vector<bool> TcpStoreServer::check(const std::vector<std::string>& keys) const {
  std::lock_guard lock(impl_->mu);
  std::vector<bool> out;
  for (const auto& k : keys) out.push_back(impl_->kv.count(k) > 0);
  return out;
}

std::optional<std::string> TcpStoreServer::peek(const std::string& key) const {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->kv.find(key);
  if (it == impl_->kv.end()) return std::nullopt;
  return it->second;
}

ServerStats TcpStoreServer::stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->st;
}

std::vector<std::string> TcpStoreServer::recent_log() const {
  std::lock_guard lock(impl_->mu);
  return {impl_->log_lines.begin(), impl_->log_lines.end()};
}

void TcpStoreServer::Impl::run() {
  ::pthread_setname_np(::pthread_self(), "dd-store");
  if (opt.thread_nice != 0) ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), opt.thread_nice);
  std::vector<epoll_event> events(1024);
  while (true) {
    auto now = Clock::now();
    Deadline next = now + std::chrono::seconds(1);
    if (!handshakes.empty()) next = std::min(next, handshakes.begin()->first);
    if (!wait_deadlines.empty()) next = std::min(next, wait_deadlines.begin()->first);
    int timeout = next <= now ? 0 : remaining_ms(next) + 1;
    int n = ::epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), timeout);
    if (n < 0 && errno != EINTR) {
      log(fmt::format("epoll_wait failed: {}; server stops", std::strerror(errno)));
      return;
    }
    for (int i = 0; i < n; ++i) {
      uint64_t id = events[i].data.u64;
      if (id == kWakeId) return;  // stop()
      if (id == kListenId) {
        accept_all();
        continue;
      }
      auto it = conns.find(id);
      if (it == conns.end()) continue;  // closed earlier in this batch
      Conn& c = *it->second;
      if (events[i].events & EPOLLOUT) {
        flush(c);
        if (!conns.count(id)) continue;
      }
      if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(c);
    }
    now = Clock::now();
    while (!wait_deadlines.empty() && wait_deadlines.begin()->first <= now)
      finish_waiter(wait_deadlines.begin()->second, End::kTimedOut);
    while (!handshakes.empty() && handshakes.begin()->first <= now) {
      uint64_t id = handshakes.begin()->second;
      drop(id, fmt::format("no authentication within {} ms (stalled or not a distdoctor client)",
                           opt.handshake_timeout.count()));
    }
    while (!resume.empty()) {
      uint64_t id = resume.back();
      resume.pop_back();
      if (auto it = conns.find(id); it != conns.end()) process(*it->second);
    }
  }
}

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
        log("out of file descriptors: refused a client (raise ulimit -n on the master)");
        continue;
      }
      return;  // EAGAIN or a transient error: level-triggered epoll calls again
    }
    if (conns.size() >= opt.max_connections) {
      log(fmt::format("refused {}: {} connections open (the cap)", addr_name(ss), conns.size()));
      ::close(fd);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_unique<Conn>(opt.limits);
    c->id = next_id++;
    c->fd = fd;
    c->peer = addr_name(ss);
    c->handshake_deadline = Clock::now() + opt.handshake_timeout;
    handshakes.insert({c->handshake_deadline, c->id});
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

void TcpStoreServer::Impl::on_readable(Conn& c) {
  char buf[65536];
  uint64_t id = c.id;
  while (true) {
    ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.reader.feed(buf, static_cast<size_t>(n));
      if (c.reader.buffered() > opt.limits.max_frame + wire::kHeaderBytes + (1u << 16)) {
        drop(id, fmt::format("{} bytes buffered without a complete answer (cap)", c.reader.buffered()));
        return;
      }
      // Before authentication only the small handshake frames are legitimate: a stranger may not make us
      // buffer megabytes. (An authenticating client may send its first request right behind its proof.)
      if (c.state != Conn::kReady) {
        process(c);
        if (!conns.count(id)) return;
      }
      if (c.state != Conn::kReady && c.reader.buffered() > kMaxHandshakeBytes) {
        drop(id, fmt::format("{} bytes sent before authenticating (handshake frames are small)",
                             c.reader.buffered()));
        return;
      }
      if (static_cast<size_t>(n) < sizeof buf) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (c.state == Conn::kReady) {
      close_conn(id);  // a client hanging up after its work is normal
    } else {
      drop(id, n == 0 ? "closed during the handshake" : std::string("read error: ") + std::strerror(errno));
    }
    return;
  }
  process(c);
}

void TcpStoreServer::Impl::process(Conn& c) {
  uint64_t id = c.id;
  while (!c.parked) {
    wire::Parsed p = c.reader.next();
    if (p.state == wire::Parsed::kNeedMore) break;
    if (p.state == wire::Parsed::kBad) {
      drop(id, p.reason);
      return;
    }
    if (!handle(c, p.message)) return;
  }
  flush(c);
}

void TcpStoreServer::Impl::flush(Conn& c) {
  while (c.out_pos < c.out.size()) {
    ssize_t n = ::send(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos, MSG_NOSIGNAL);
    if (n > 0) {
      c.out_pos += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    close_conn(c.id);  // peer gone; its waits are cancelled with it
    return;
  }
  if (c.out_pos == c.out.size()) {
    c.out.clear();
    c.out_pos = 0;
  } else if (c.out.size() - c.out_pos > opt.max_out_bytes) {
    drop(c.id, fmt::format("{} answer bytes not read by the client (cap)", c.out.size() - c.out_pos));
    return;
  }
  update_events(c);
}

void TcpStoreServer::Impl::update_events(Conn& c) {
  bool want = c.out_pos < c.out.size();
  if (want == c.want_write) return;
  c.want_write = want;
  epoll_event ev{};
  ev.events = static_cast<uint32_t>(EPOLLIN) | (want ? static_cast<uint32_t>(EPOLLOUT) : 0u);
  ev.data.u64 = c.id;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &ev);
}

void TcpStoreServer::Impl::drop(uint64_t id, const std::string& reason) {
  auto it = conns.find(id);
  if (it == conns.end()) return;
  log(fmt::format("dropped connection from {}: {}", it->second->peer, reason));
  {
    std::lock_guard lock(mu);
    ++st.dropped_bad_input;
  }
  close_conn(id);
}

void TcpStoreServer::Impl::close_conn(uint64_t id) {
  auto it = conns.find(id);
  if (it == conns.end()) return;
  Conn& c = *it->second;
  if (c.parked) finish_waiter(c.parked, End::kCancelled);  // cancel: nobody to answer
  handshakes.erase({c.handshake_deadline, id});
  ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
  ::close(c.fd);
  conns.erase(it);
  std::lock_guard lock(mu);
  st.open_connections = conns.size();
}

}  // namespace dd::rendezvous
