// TcpStoreServer: start (bind, listen, the loop thread), stop, and the master's thread-safe view of the keys.
// The loop itself is in server_loop.cc, request handling in server_ops.cc and server_handshake.cc.
#include "rendezvous/tcp_store_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
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

// A non-blocking socket bound to host:port and listening; *bound_port says which port (port 0: the kernel's
// pick).
Result<int> open_listener(const std::string& host, uint16_t port, uint16_t* bound_port) {
  auto addr = bind_address(host, port);
  if (!addr) return addr.error();
  auto [ss, len] = *addr;
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
  *bound_port = ntohs(ss.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&ss)->sin_port
                                              : reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return fd;
}

}  // namespace

// Logs a warning when the listen queue is shorter than the clients expected to connect at once.
void TcpStoreServer::Impl::check_somaxconn() {
  const size_t somaxconn = opt.somaxconn;
  if (opt.expected_clients && somaxconn && somaxconn < opt.expected_clients)
    log(
        fmt::format("net.core.somaxconn is {} but {} clients are expected: connects past the listen queue "
                    "will be retried (sysctl -w net.core.somaxconn={})",
                    somaxconn, opt.expected_clients, opt.expected_clients));
}

Result<std::unique_ptr<TcpStoreServer>> TcpStoreServer::start(ServerOptions options) {
  if (options.token.empty())  // an empty key would let anyone who reaches the port in
    return Error::invalid("store server: empty job token (every store needs a secret token)");
  raise_nofile_limit();
  auto impl = std::make_unique<Impl>();
  impl->opt = std::move(options);
  auto fd = open_listener(impl->opt.bind_host, impl->opt.port, &impl->port);
  if (!fd) return fd.error();
  impl->listen_fd = *fd;
  impl->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  impl->wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  impl->spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenId;
  ::epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, *fd, &ev);
  ev.data.u64 = kWakeId;
  ::epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, impl->wake_fd, &ev);
  impl->check_somaxconn();
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

}  // namespace dd::rendezvous
