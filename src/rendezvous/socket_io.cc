// Socket helpers with deadlines: every wait is a poll() with the time left, nothing blocks unbounded.
#include "rendezvous/socket_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

namespace dd::rendezvous {

std::string HostPort::str() const {
  return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port)
                                             : fmt::format("{}:{}", host, port);
}

Result<HostPort> parse_host_port(const std::string& s) {
  HostPort hp;
  std::string port;
  if (!s.empty() && s[0] == '[') {
    auto close = s.find(']');
    if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != ':')
      return Error::invalid(fmt::format("'{}' is not [ADDRESS]:PORT", s));
    hp.host = s.substr(1, close - 1);
    port = s.substr(close + 2);
  } else {
    auto colon = s.rfind(':');
    if (colon == std::string::npos) return Error::invalid(fmt::format("'{}' is not HOST:PORT (no port)", s));
    hp.host = s.substr(0, colon);
    port = s.substr(colon + 1);
  }
  char* end = nullptr;
  long p = std::strtol(port.c_str(), &end, 10);
  if (hp.host.empty() || port.empty() || *end || p < 0 || p > 65535)
    return Error::invalid(fmt::format("'{}' is not HOST:PORT (bad host or port)", s));
  hp.port = static_cast<uint16_t>(p);
  return hp;
}

int remaining_ms(Deadline deadline) {
  // Rounded up: 0.7 ms left is a 1 ms poll, not a poll that returns at once and reads as a timeout.
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : static_cast<int>(left);
}

Result<std::vector<sockaddr_storage>> resolve(const HostPort& hp, Deadline deadline) {
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    int rc = 0;
    std::vector<sockaddr_storage> addrs;
  };
  auto st = std::make_shared<State>();
  auto lookup = [st, host = hp.host, port = std::to_string(hp.port)](int flags) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = flags;
    addrinfo* res = nullptr;
    int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &res);
    std::vector<sockaddr_storage> addrs;
    for (auto* a = res; a; a = a->ai_next) {
      sockaddr_storage ss{};
      std::memcpy(&ss, a->ai_addr, a->ai_addrlen);
      addrs.push_back(ss);
    }
    if (res) ::freeaddrinfo(res);
    std::lock_guard lock(st->mu);
    st->rc = rc;
    st->addrs = std::move(addrs);
    st->done = true;
    st->cv.notify_all();
  };
  lookup(AI_NUMERICHOST | AI_NUMERICSERV);  // literal addresses: no resolver involved
  if (st->rc != 0) {
    st->done = false;
    std::thread(lookup, AI_NUMERICSERV).detach();
    std::unique_lock lock(st->mu);
    if (!st->cv.wait_until(lock, deadline, [&] { return st->done; }))
      return Error::timeout(
          fmt::format("resolve {}: no answer from the resolver before the deadline", hp.host), hp.host);
  }
  if (st->rc != 0)
    return Error::make(ErrorKind::not_found, fmt::format("resolve {}: {}", hp.host, ::gai_strerror(st->rc)),
                       hp.host);
  if (st->addrs.empty())
    return Error::make(ErrorKind::not_found, fmt::format("resolve {}: no addresses", hp.host), hp.host);
  return st->addrs;
}

std::string addr_name(const sockaddr_storage& a) {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (a.ss_family == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    ::inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
    return fmt::format("{}:{}", buf, ntohs(in->sin_port));
  }
  if (a.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof buf);
    return fmt::format("[{}]:{}", buf, ntohs(in6->sin6_port));
  }
  return "?";
}

std::string peer_name(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return "?";
  return addr_name(a);
}

Result<int> connect_once(const sockaddr_storage& addr, Deadline deadline) {
  int fd = ::socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error::from_errno("socket");
  socklen_t len = addr.ss_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
  int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), len);
  if (rc != 0 && errno != EINPROGRESS) {
    int e = errno;
    ::close(fd);
    return Error::sys(e, "connect to " + addr_name(addr), addr_name(addr));
  }
  if (rc != 0) {
    pollfd p{fd, POLLOUT, 0};
    int n;
    do n = ::poll(&p, 1, remaining_ms(deadline));
    while (n < 0 && errno == EINTR);
    int e = 0;
    socklen_t elen = sizeof e;
    if (n == 0)
      e = ETIMEDOUT;
    else if (n < 0)
      e = errno;
    else
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &elen);
    if (e != 0) {
      ::close(fd);
      return Error::sys(e, "connect to " + addr_name(addr), addr_name(addr));
    }
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  enable_keepalive(fd);
  return fd;
}

void enable_keepalive(int fd) {
  // Idle 5 s, then 3 probes 2 s apart: a peer behind a dead link is an error after about 11 s of silence,
  // however long the call's own deadline (a wait for the master's verdict may be minutes).
  int one = 1, idle = 5, interval = 2, count = 3;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

Result<int> connect_with_retries(const HostPort& hp, Deadline deadline, const ConnectOptions& opt) {
  auto start = Clock::now();
  auto addrs = resolve(hp, deadline);
  if (!addrs) return addrs.error();
  auto backoff = opt.first_backoff;
  int attempts = 0;
  Error last{"no attempt"};
  while (true) {
    for (const auto& a : *addrs) {
      ++attempts;
      auto fd = connect_once(a, std::min(deadline, Clock::now() + opt.attempt_timeout));
      if (fd) return fd;
      last = fd.error();
      if (last.err == EMFILE || last.err == ENFILE) return last;  // retrying does not make fds
    }
    if (Clock::now() >= deadline) break;
    // Full jitter: sleep a uniform fraction of the backoff, so thousands of clients do not retry in step.
    thread_local std::mt19937_64 rng(std::random_device{}());
    auto sleep = std::chrono::milliseconds(std::uniform_int_distribution<int64_t>(1, backoff.count())(rng));
    if (Clock::now() + sleep >= deadline)
      sleep = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    std::this_thread::sleep_for(sleep);
    backoff = std::min(opt.max_backoff, backoff * 2);
    if (Clock::now() >= deadline) break;
  }
  auto secs = std::chrono::duration<double>(Clock::now() - start).count();
  // Refused to the end: nobody listens there. Anything else: the deadline passed while we tried.
  auto kind = last.kind == ErrorKind::refused ? ErrorKind::refused : ErrorKind::timeout;
  return Error::make(kind,
                     fmt::format("connect to store at {}: gave up after {} attempt{} in {:.1f} s", hp.str(),
                                 attempts, attempts == 1 ? "" : "s", secs),
                     hp.str(), last.err);
}

Status send_all(int fd, std::string_view data, Deadline deadline, const std::string& peer) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
      return Error::from_errno("send to store at " + peer, peer);
    pollfd p{fd, POLLOUT, 0};
    int r = ::poll(&p, 1, remaining_ms(deadline));
    if (r == 0) return Error::timeout("send to store at " + peer + ": deadline passed", peer);
    if (r < 0 && errno != EINTR) return Error::from_errno("poll store socket " + peer, peer);
  }
  return ok_status();
}

Result<size_t> recv_some(int fd, char* buf, size_t cap, Deadline deadline, const std::string& peer,
                         bool poll_first) {
  while (true) {
    if (poll_first) {
      pollfd p{fd, POLLIN, 0};
      int r = ::poll(&p, 1, remaining_ms(deadline));
      if (r == 0) return Error::timeout("no answer from store at " + peer + " before the deadline", peer);
      poll_first = false;
    }
    ssize_t n = ::recv(fd, buf, cap, 0);
    if (n > 0) return static_cast<size_t>(n);
    if (n == 0) return Error::closed("store at " + peer + " closed the connection (server gone?)", peer);
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      return Error::from_errno("receive from store at " + peer, peer);
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, remaining_ms(deadline));
    if (r == 0) return Error::timeout("no answer from store at " + peer + " before the deadline", peer);
    if (r < 0 && errno != EINTR) return Error::from_errno("poll store socket " + peer, peer);
  }
}

long raise_nofile_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
  if (rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &rl);
    ::getrlimit(RLIMIT_NOFILE, &rl);
  }
  return static_cast<long>(rl.rlim_cur);
}

}  // namespace dd::rendezvous
