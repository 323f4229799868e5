// TCP mesh: listeners with a handshake + optional bandwidth echo, and a poll-driven parallel prober.
#include "cluster/mesh.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "cluster/nccl_if_guess.h"

namespace dd::cluster {
namespace {

using Clock = std::chrono::steady_clock;
constexpr char kMagic[8] = {'D', 'D', 'M', 'E', 'S', 'H', '0', '1'};
constexpr size_t kHello = 16;           // magic + tag
constexpr size_t kReply = 20;           // magic + tag + rank
constexpr uint64_t kMaxBw = 64u << 20;  // bandwidth bytes a listener accepts per direction

bool to_sockaddr(const std::string& addr, int port, sockaddr_storage* ss, socklen_t* len) {
  std::memset(ss, 0, sizeof(*ss));
  auto* v4 = reinterpret_cast<sockaddr_in*>(ss);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(ss);
  if (inet_pton(AF_INET, addr.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<uint16_t>(port));
    *len = sizeof(sockaddr_in);
    return true;
  }
  if (inet_pton(AF_INET6, addr.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<uint16_t>(port));
    *len = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

void put64(char* p, uint64_t v) { std::memcpy(p, &v, 8); }
uint64_t get64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Blocking exact I/O on a socket with SO_RCVTIMEO/SO_SNDTIMEO set.
bool read_all(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r <= 0) {
      if (r < 0 && errno == EINTR) continue;
      return false;
    }
    p += r, n -= static_cast<size_t>(r);
  }
  return true;
}
bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::send(fd, p, n, MSG_NOSIGNAL);
    if (r <= 0) {
      if (r < 0 && errno == EINTR) continue;
      return false;
    }
    p += r, n -= static_cast<size_t>(r);
  }
  return true;
}
bool sink(int fd, uint64_t n) {
  std::vector<char> buf(1 << 16);
  while (n > 0) {
    size_t chunk = std::min<uint64_t>(n, buf.size());
    if (!read_all(fd, buf.data(), chunk)) return false;
    n -= chunk;
  }
  return true;
}
bool pump(int fd, uint64_t n) {
  std::vector<char> buf(1 << 16, 'x');
  while (n > 0) {
    size_t chunk = std::min<uint64_t>(n, buf.size());
    if (!write_all(fd, buf.data(), chunk)) return false;
    n -= chunk;
  }
  return true;
}

void set_timeouts(int fd, int ms) {
  timeval tv{ms / 1000, (ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

std::string classify(int err) {
  switch (err) {
    case ECONNREFUSED:
      return "refused";
    case ETIMEDOUT:
      return "timeout";
    case EHOSTUNREACH:
      return "unreachable";
    case ENETUNREACH:
      return "no route";
    case ECONNRESET:
      return "reset";
    default:
      return "error";
  }
}

}  // namespace

std::vector<MeshEndpoint> mesh_candidates(const probe::NetFacts& net, const std::string& nccl_setting) {
  std::vector<MeshEndpoint> out;
  bool setting = nccl_setting.size() > 1;
  for (const auto& i : net.interfaces) {
    if (!i.up || i.kind == "loopback") continue;
    bool odd = i.name.rfind("docker", 0) == 0 || i.name.rfind("virbr", 0) == 0;
    if (odd && !(setting && nccl_if_matches(i.name, nccl_setting))) continue;
    std::string addr;
    if (!i.ipv4.empty()) addr = i.ipv4.front().substr(0, i.ipv4.front().find('/'));
    for (const auto& a : i.ipv6)
      if (addr.empty() && a.rfind("fe80", 0) != 0) addr = a.substr(0, a.find('/'));
    if (!addr.empty()) out.push_back(MeshEndpoint{i.name, addr, 0});
  }
  return out;
}

Result<std::unique_ptr<MeshServer>> MeshServer::start(const std::vector<MeshEndpoint>& candidates,
                                                      uint64_t job_tag, int rank) {
  std::unique_ptr<MeshServer> s(new MeshServer());
  s->tag_ = job_tag;
  s->rank_ = rank;
  if (pipe2(s->wake_, O_CLOEXEC) != 0) return Error::from_errno("mesh: pipe");
  for (const auto& c : candidates) {
    sockaddr_storage ss;
    socklen_t len;
    if (!to_sockaddr(c.addr, c.port, &ss, &len)) continue;
    int fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 || ::listen(fd, 1024) != 0) {
      ::close(fd);
      continue;
    }
    getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
    int port = ntohs(ss.ss_family == AF_INET ? reinterpret_cast<sockaddr_in*>(&ss)->sin_port
                                             : reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
    s->fds_.push_back(fd);
    s->endpoints_.push_back(MeshEndpoint{c.ifname, c.addr, port});
  }
  s->acceptor_ = std::thread([p = s.get()] { p->accept_loop(); });
  return s;
}

MeshServer::~MeshServer() { stop(); }

void MeshServer::stop() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  if (wake_[1] >= 0) (void)!::write(wake_[1], "x", 1);
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> hs;
  {
    std::lock_guard<std::mutex> g(mu_);
    hs.swap(handlers_);
  }
  for (auto& t : hs) t.join();
  for (int fd : fds_) ::close(fd);
  fds_.clear();
  for (int& w : wake_)
    if (w >= 0) ::close(w), w = -1;
}

void MeshServer::accept_loop() {
  std::vector<pollfd> pfds;
  pfds.push_back({wake_[0], POLLIN, 0});
  for (int fd : fds_) pfds.push_back({fd, POLLIN, 0});
  for (;;) {
    if (::poll(pfds.data(), pfds.size(), 1000) < 0 && errno != EINTR) return;
    if (pfds[0].revents) return;
    for (size_t i = 1; i < pfds.size(); ++i) {
      if (!(pfds[i].revents & POLLIN)) continue;
      int c = ::accept4(pfds[i].fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      if (active_.load() >= 256) {  // bounded: a flood of peers cannot exhaust threads
        ::close(c);
        continue;
      }
      active_++;
      std::lock_guard<std::mutex> g(mu_);
      handlers_.emplace_back([this, c] {
        serve(c);
        ::close(c);
        active_--;
      });
    }
  }
}

void MeshServer::serve(int fd) {
  set_timeouts(fd, 5000);
  char hello[kHello];
  if (!read_all(fd, hello, kHello) || std::memcmp(hello, kMagic, 8) != 0) return;
  char reply[kReply];
  std::memcpy(reply, kMagic, 8);
  put64(reply + 8, tag_);
  int32_t r = rank_;
  std::memcpy(reply + 16, &r, 4);
  if (!write_all(fd, reply, kReply)) return;
  if (get64(hello + 8) != tag_) return;  // another job: say who we are, serve nothing else
  char nbuf[8];
  if (!read_all(fd, nbuf, 8)) return;  // EOF: reachability only
  uint64_t n = get64(nbuf);
  if (n == 0 || n > kMaxBw) return;
  if (!sink(fd, n) || !write_all(fd, "k", 1)) return;
  pump(fd, n);
}

namespace {

struct Conn {
  int fd = -1;
  int stage = 0;  // 0 connecting, 1 sending hello, 2 reading reply, 3 done
  Clock::time_point t0;
  char buf[kReply];
  size_t done = 0;
};

void finish(Conn& c, MeshProbe& p, bool ok, std::string error, std::string detail) {
  p.ok = ok;
  p.error = std::move(error);
  p.detail = std::move(detail);
  c.stage = 3;
  if (c.fd >= 0) ::close(c.fd), c.fd = -1;
}

void measure_bandwidth(const MeshTarget& t, const MeshRunOptions& opt, MeshProbe& p) {
  sockaddr_storage ss;
  socklen_t len;
  if (!to_sockaddr(t.ep.addr, t.ep.port, &ss, &len)) return;
  int fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  set_timeouts(fd, static_cast<int>(opt.connect_timeout.count()) + 3000);
  char hello[kHello], reply[kReply], nbuf[8], ack;
  std::memcpy(hello, kMagic, 8);
  put64(hello + 8, opt.job_tag);
  put64(nbuf, opt.bandwidth_bytes);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&ss), len) == 0 && write_all(fd, hello, kHello) &&
      read_all(fd, reply, kReply) && write_all(fd, nbuf, 8)) {
    auto t0 = Clock::now();
    if (pump(fd, opt.bandwidth_bytes) && read_all(fd, &ack, 1)) {
      double s = std::chrono::duration<double>(Clock::now() - t0).count();
      p.mbps_send = opt.bandwidth_bytes / 1e6 / std::max(s, 1e-6);
      auto t1 = Clock::now();
      if (sink(fd, opt.bandwidth_bytes)) {
        double s2 = std::chrono::duration<double>(Clock::now() - t1).count();
        p.mbps_recv = opt.bandwidth_bytes / 1e6 / std::max(s2, 1e-6);
      }
    }
  }
  ::close(fd);
}

}  // namespace

std::vector<MeshProbe> run_mesh(const std::vector<MeshTarget>& targets, const MeshRunOptions& opt) {
  std::vector<MeshProbe> probes(targets.size());
  std::vector<Conn> conns(targets.size());
  auto deadline_of = [&](const Conn& c) { return c.t0 + opt.connect_timeout; };
  for (size_t i = 0; i < targets.size(); ++i) {
    const auto& t = targets[i];
    auto& p = probes[i];
    p.from = opt.from_node;
    p.to = t.to_node;
    p.to_if = t.ep.ifname;
    p.to_addr = t.ep.addr;
    Conn& c = conns[i];
    sockaddr_storage ss;
    socklen_t len;
    if (!to_sockaddr(t.ep.addr, t.ep.port, &ss, &len)) {
      finish(c, p, false, "error", "bad address " + t.ep.addr);
      continue;
    }
    c.fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c.fd < 0) {
      finish(c, p, false, "error", std::strerror(errno));
      continue;
    }
    c.t0 = Clock::now();
    if (::connect(c.fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 && errno != EINPROGRESS) {
      int e = errno;
      finish(c, p, false, classify(e), std::strerror(e));
      continue;
    }
    c.stage = 0;
  }
  for (;;) {
    std::vector<pollfd> pfds;
    std::vector<size_t> which;
    auto now = Clock::now();
    for (size_t i = 0; i < conns.size(); ++i) {
      Conn& c = conns[i];
      if (c.stage == 3) continue;
      if (now >= deadline_of(c)) {
        finish(c, probes[i], false, "timeout",
               c.stage == 0 ? "no answer to connect" : "connected but no handshake reply");
        continue;
      }
      pfds.push_back({c.fd, static_cast<short>(c.stage == 2 ? POLLIN : POLLOUT), 0});
      which.push_back(i);
    }
    if (pfds.empty()) break;
    if (::poll(pfds.data(), pfds.size(), 50) < 0 && errno != EINTR) break;
    for (size_t k = 0; k < pfds.size(); ++k) {
      if (!pfds[k].revents) continue;
      size_t i = which[k];
      Conn& c = conns[i];
      MeshProbe& p = probes[i];
      if (c.stage == 0) {
        int err = 0;
        socklen_t el = sizeof(err);
        getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &el);
        if (err) {
          finish(c, p, false, classify(err), std::strerror(err));
          continue;
        }
        p.connect_ms = std::chrono::duration<double, std::milli>(Clock::now() - c.t0).count();
        std::memcpy(c.buf, kMagic, 8);
        put64(c.buf + 8, opt.job_tag);
        c.stage = 1;
        c.done = 0;
      }
      if (c.stage == 1) {
        ssize_t w = ::send(c.fd, c.buf + c.done, kHello - c.done, MSG_NOSIGNAL);
        if (w < 0 && errno != EAGAIN) {
          int e = errno;
          finish(c, p, false, classify(e), std::strerror(e));
          continue;
        }
        if (w > 0) c.done += static_cast<size_t>(w);
        if (c.done == kHello) c.stage = 2, c.done = 0;
        continue;
      }
      if (c.stage == 2) {
        ssize_t r = ::recv(c.fd, c.buf + c.done, kReply - c.done, 0);
        if (r == 0 || (r < 0 && errno != EAGAIN)) {
          int e = r == 0 ? ECONNRESET : errno;
          finish(c, p, false, r == 0 ? "reset" : classify(e),
                 r == 0 ? "closed before the handshake" : std::strerror(e));
          continue;
        }
        if (r > 0) c.done += static_cast<size_t>(r);
        if (c.done < kReply) continue;
        int32_t rank;
        std::memcpy(&rank, c.buf + 16, 4);
        if (std::memcmp(c.buf, kMagic, 8) != 0)
          finish(c, p, false, "wrong peer", "something else listens there");
        else if (get64(c.buf + 8) != opt.job_tag)
          finish(c, p, false, "wrong peer", "answered by another distdoctor job");
        else if (rank != targets[i].expect_rank)
          finish(c, p, false, "wrong peer", "answered by rank " + std::to_string(rank) + " instead");
        else
          finish(c, p, true, "", "");
      }
    }
  }
  if (opt.bandwidth_bytes > 0)
    for (size_t i = 0; i < targets.size(); ++i)
      if (targets[i].bandwidth && probes[i].ok) measure_bandwidth(targets[i], opt, probes[i]);
  return probes;
}

}  // namespace dd::cluster
