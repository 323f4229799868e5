// TcpStoreServer: start (bind, listen, the loop threads), stop, the shared log and counters, and the master's
// thread-safe view of the keys. One loop is in server_loop.cc, admission in server_accept.cc and
// server_admission.cc, requests in server_ops.cc, server_waits.cc and server_handshake.cc.
#include "rendezvous/tcp_store_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rendezvous/server_state.h"
#include "rendezvous/socket_io.h"

namespace dd::rendezvous {

namespace {

// The socket address of an IP literal and port; an Error when host is not an IP address.
Result<std::pair<sockaddr_storage, socklen_t>> bind_address(const std::string& host, uint16_t port) {
  sockaddr_storage ss{};
  if (::inet_pton(AF_INET, host.c_str(), &reinterpret_cast<sockaddr_in*>(&ss)->sin_addr) == 1) {
    auto* in = reinterpret_cast<sockaddr_in*>(&ss);
    in->sin_family = AF_INET;
    in->sin_port = htons(port);
    return std::pair{ss, socklen_t(sizeof(sockaddr_in))};
  }
  if (::inet_pton(AF_INET6, host.c_str(), &reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr) == 1) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(port);
    return std::pair{ss, socklen_t(sizeof(sockaddr_in6))};
  }
  return Error::invalid(fmt::format("store server: bind address '{}' is not an IP address", host));
}

// A socket bound to host:port. With reuse_port several such sockets share the port and the kernel spreads
// the incoming connections over their accept queues (only sockets of the same user can join: Linux checks
// the uid). *bound_port says which port (port 0: the kernel's pick).
Result<int> bind_socket(const std::string& host, uint16_t port, bool reuse_port, uint16_t* bound_port) {
  auto addr = bind_address(host, port);
  if (!addr) return addr.error();
  auto [ss, len] = *addr;
  std::string where = addr_name(ss);
  int fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error::from_errno("store server: socket");
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (reuse_port && ::setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
    auto e = Error::from_errno("store server: SO_REUSEPORT");
    ::close(fd);
    return e;
  }
  // Accepted sockets inherit TCP_NODELAY and the keepalive settings from the listener (Linux): no setsockopt
  // per connection. Keepalive: a client node that vanished (power, cable: no FIN, no RST) is closed after
  // about 11 s of silence, its parked waits cancelled and its live keys gone, not after the kernel's hours.
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  enable_keepalive(fd);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0) {
    auto e = Error::from_errno("store server: bind " + where);
    ::close(fd);
    return e;
  }
  socklen_t slen = sizeof ss;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &slen);
  *bound_port = ntohs(ss.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&ss)->sin_port
                                              : reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return fd;
}

// count sockets listening on host:port. The port is first bound alone (no SO_REUSEPORT), so a port another
// program holds is an error as before, not silently shared; then every listener joins it with SO_REUSEPORT.
// Where SO_REUSEPORT is refused, one listener.
Result<std::vector<int>> open_listeners(const std::string& host, uint16_t port, size_t count,
                                        uint16_t* bound_port) {
  auto probe = bind_socket(host, port, false, bound_port);
  if (!probe) return probe.error();
  std::vector<int> fds;
  if (count > 1) {
    ::close(*probe);
    for (size_t i = 0; i < count; ++i) {
      auto fd = bind_socket(host, *bound_port, true, bound_port);
      if (!fd) break;
      fds.push_back(*fd);
    }
    if (fds.empty()) {  // no SO_REUSEPORT here (or the port was taken meanwhile): one plain listener
      auto fd = bind_socket(host, *bound_port, false, bound_port);
      if (!fd) return fd.error();
      fds.push_back(*fd);
    }
  } else {
    fds.push_back(*probe);
  }
  for (int fd : fds) {
    // The kernel caps the backlog at net.core.somaxconn; ask for the most it allows.
    if (::listen(fd, 65535) != 0) {
      auto e = Error::from_errno(fmt::format("store server: listen on {}:{}", host, *bound_port));
      for (int f : fds) ::close(f);
      return e;
    }
  }
  return fds;
}

// Grows this process's descriptor table to hold `fds` at once. The kernel grows it by doubling when a new fd
// does not fit, and in a multi-threaded process each growth waits for an RCU grace period while every
// accept and socket call in the process waits for it: a burst of thousands of connects met half a dozen of
// those. Best effort (capped by RLIMIT_NOFILE).
void presize_fd_table(size_t fds) {
  rlimit rl{};
  if (fds == 0 || ::getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
  size_t top = std::min<size_t>(fds, rl.rlim_cur == RLIM_INFINITY ? fds : size_t(rl.rlim_cur) - 1);
  int base = ::eventfd(0, EFD_CLOEXEC);  // any descriptor to duplicate; no file opened
  if (base < 0) return;
  int fd = ::fcntl(base, F_DUPFD_CLOEXEC, static_cast<int>(top));  // the lowest free fd >= top
  ::close(base);
  if (fd >= 0) ::close(fd);
}

// Loop threads: ServerOptions::threads, or as many as the CPUs this process may run on, at most 4.
size_t thread_count(const ServerOptions& o) {
  if (o.threads > 0) return o.threads;
  cpu_set_t set;
  size_t cpus = ::sched_getaffinity(0, sizeof set, &set) == 0 ? size_t(CPU_COUNT(&set)) : 1;
  return std::clamp<size_t>(cpus, 1, 4);
}

// Listeners: one per thread, more when the expected burst of connects is longer than one accept queue
// (net.core.somaxconn): each listener has its own queue, and a connect past a full queue costs ~1 s.
size_t listener_count(const ServerOptions& o, size_t threads) {
  size_t n = threads;
  if (o.expected_clients && o.somaxconn)
    n = std::max(n, (o.expected_clients + o.somaxconn - 1) / o.somaxconn);
  return std::min<size_t>(n, 64);
}

}  // namespace

void TcpStoreServer::Impl::log(const std::string& line) {
  {
    std::lock_guard lock(mu);
    log_lines.push_back(line);
    if (log_lines.size() > 256) log_lines.pop_front();
  }
  say(opt.log, ProgressKind::progress, line);
}

void TcpStoreServer::Impl::log_event(const std::string& line) {
  std::vector<std::string> lines;
  {
    std::lock_guard lock(mu);
    lines = event_log.admit(line, Clock::now());
  }
  for (auto& l : lines) log(l);
}

void TcpStoreServer::Impl::count(uint64_t ServerStats::*field) {
  std::lock_guard lock(mu);
  ++(st.*field);
}

// Logs a warning when the listen queues are shorter than the clients expected to connect at once.
void TcpStoreServer::Impl::check_somaxconn(size_t listeners) {
  const size_t room = opt.somaxconn * listeners;
  if (opt.expected_clients && opt.somaxconn && room < opt.expected_clients)
    log(
        fmt::format("net.core.somaxconn is {} ({} listen queues) but {} clients are expected: connects past "
                    "the listen queues will be retried (sysctl -w net.core.somaxconn={})",
                    opt.somaxconn, listeners, opt.expected_clients, opt.expected_clients));
}

Result<std::unique_ptr<TcpStoreServer>> TcpStoreServer::start(ServerOptions options) {
  if (options.token.empty())  // an empty key would let anyone who reaches the port in
    return Error::invalid("store server: empty job token (every store needs a secret token)");
  raise_nofile_limit();
  if (options.expected_clients) presize_fd_table(options.expected_clients + 64);
  auto impl = std::make_unique<Impl>();
  impl->opt = std::move(options);
  const auto& o = impl->opt;
  impl->admission =
      std::make_unique<Admission>(o.max_connections, o.max_pending, o.max_pending_per_peer,
                                  Admission::Guessing{o.wrong_tokens_per_pause, o.wrong_token_pause});
  const size_t threads = thread_count(o);
  auto fds = open_listeners(o.bind_host, o.port, listener_count(o, threads), &impl->port);
  if (!fds) return fds.error();
  for (size_t i = 0; i < threads; ++i) {
    auto sh = std::make_unique<Shard>(*impl, i);
    sh->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
    sh->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    sh->spare_fd = ::eventfd(0, EFD_CLOEXEC);  // a descriptor held in reserve (accept_all)
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kWakeId;
    ::epoll_ctl(sh->epoll_fd, EPOLL_CTL_ADD, sh->wake_fd, &ev);
    impl->shards.push_back(std::move(sh));
  }
  for (size_t i = 0; i < fds->size(); ++i) {  // listeners dealt round-robin to the shards
    Shard& sh = *impl->shards[i % threads];
    int fd = (*fds)[i];
    sh.listen_fds.push_back(fd);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenBit | static_cast<uint64_t>(fd);
    ::epoll_ctl(sh.epoll_fd, EPOLL_CTL_ADD, fd, &ev);
  }
  impl->check_somaxconn(fds->size());
  for (auto& sh : impl->shards) sh->thread = std::thread([raw = sh.get()] { raw->run(); });
  return std::unique_ptr<TcpStoreServer>(new TcpStoreServer(std::move(impl)));
}

TcpStoreServer::TcpStoreServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TcpStoreServer::~TcpStoreServer() { stop(); }

void TcpStoreServer::stop() {
  if (!impl_ || impl_->stopped) return;
  impl_->stopped = true;
  impl_->stopping = true;
  uint64_t one = 1;
  for (auto& sh : impl_->shards) [[maybe_unused]] auto n = ::write(sh->wake_fd, &one, sizeof one);
  for (auto& sh : impl_->shards)
    if (sh->thread.joinable()) sh->thread.join();
  for (auto& sh : impl_->shards) {
    for (auto& [id, c] : sh->conns) ::close(c->fd);
    sh->conns.clear();
    for (int fd : sh->listen_fds) ::close(fd);
    for (int fd : {sh->epoll_fd, sh->wake_fd, sh->spare_fd})
      if (fd >= 0) ::close(fd);
  }
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
  ServerStats s;
  {
    std::lock_guard lock(impl_->mu);
    s = impl_->st;
  }
  s.open_connections = impl_->admission->open();
  s.buffered_bytes = impl_->buffered.load();
  s.buffered_peak = impl_->buffered_peak.load();
  return s;
}

std::vector<std::string> TcpStoreServer::recent_log() const {
  std::lock_guard lock(impl_->mu);
  return {impl_->log_lines.begin(), impl_->log_lines.end()};
}

}  // namespace dd::rendezvous
