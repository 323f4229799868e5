// Mesh prober: non-blocking connects to every target at once, driven by poll, each with its own deadline;
// then, on request, a bandwidth exchange with the listener on each node's NCCL interface.
#include "cluster/mesh.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "cluster/mesh_wire.h"

namespace dd::cluster {

using namespace mesh_wire;
using Clock = std::chrono::steady_clock;

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

// Opens the non-blocking connection of one target (or finishes its probe with the error).
void start_connect(const MeshTarget& t, const MeshRunOptions& opt, Conn& c, MeshProbe& p) {
  p.from = opt.from_node;
  p.to = t.to_node;
  p.to_if = t.ep.ifname;
  p.to_addr = t.ep.addr;
  sockaddr_storage ss;
  socklen_t len;
  if (!to_sockaddr(t.ep.addr, t.ep.port, &ss, &len))
    return finish(c, p, false, "error", "bad address " + t.ep.addr);
  c.fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c.fd < 0) return finish(c, p, false, "error", std::strerror(errno));
  c.t0 = Clock::now();
  if (::connect(c.fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 && errno != EINPROGRESS) {
    int e = errno;
    return finish(c, p, false, classify(e), std::strerror(e));
  }
  c.stage = 0;
}

// Stage 0 -> 1: the connect completed (or failed); the hello is prepared.
void on_connected(Conn& c, MeshProbe& p, const MeshRunOptions& opt) {
  int err = 0;
  socklen_t el = sizeof(err);
  getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &el);
  if (err) return finish(c, p, false, classify(err), std::strerror(err));
  p.connect_ms = std::chrono::duration<double, std::milli>(Clock::now() - c.t0).count();
  std::memcpy(c.buf, kMagic, 8);
  put64(c.buf + 8, opt.job_tag);
  c.stage = 1;
  c.done = 0;
}

// Stage 1 -> 2: send (the rest of) the hello.
void send_hello(Conn& c, MeshProbe& p) {
  ssize_t w = ::send(c.fd, c.buf + c.done, kHello - c.done, MSG_NOSIGNAL);
  if (w < 0 && errno != EAGAIN) {
    int e = errno;
    return finish(c, p, false, classify(e), std::strerror(e));
  }
  if (w > 0) c.done += static_cast<size_t>(w);
  if (c.done == kHello) c.stage = 2, c.done = 0;
}

// Stage 2 -> 3: read the reply and check it came from the intended node of this job.
void read_reply(Conn& c, MeshProbe& p, const MeshTarget& t, const MeshRunOptions& opt) {
  ssize_t r = ::recv(c.fd, c.buf + c.done, kReply - c.done, 0);
  if (r == 0 || (r < 0 && errno != EAGAIN)) {
    int e = r == 0 ? ECONNRESET : errno;
    return finish(c, p, false, r == 0 ? "reset" : classify(e),
                  r == 0 ? "closed before the handshake" : std::strerror(e));
  }
  if (r > 0) c.done += static_cast<size_t>(r);
  if (c.done < kReply) return;
  int32_t rank;
  std::memcpy(&rank, c.buf + 16, 4);
  if (std::memcmp(c.buf, kMagic, 8) != 0)
    finish(c, p, false, "wrong peer", "something else listens there");
  else if (get64(c.buf + 8) != opt.job_tag)
    finish(c, p, false, "wrong peer", "answered by another distdoctor job");
  else if (rank != t.expect_rank)
    finish(c, p, false, "wrong peer", "answered by rank " + std::to_string(rank) + " instead");
  else
    finish(c, p, true, "", "");
}

void advance(Conn& c, MeshProbe& p, const MeshTarget& t, const MeshRunOptions& opt) {
  if (c.stage == 0) on_connected(c, p, opt);
  if (c.stage == 1) return send_hello(c, p);
  if (c.stage == 2) read_reply(c, p, t, opt);
}

}  // namespace

std::vector<MeshProbe> run_mesh(const std::vector<MeshTarget>& targets, const MeshRunOptions& opt) {
  std::vector<MeshProbe> probes(targets.size());
  std::vector<Conn> conns(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) start_connect(targets[i], opt, conns[i], probes[i]);
  for (;;) {
    std::vector<pollfd> pfds;
    std::vector<size_t> which;
    auto now = Clock::now();
    for (size_t i = 0; i < conns.size(); ++i) {
      Conn& c = conns[i];
      if (c.stage == 3) continue;
      if (now >= c.t0 + opt.connect_timeout) {
        finish(c, probes[i], false, "timeout",
               c.stage == 0 ? "no answer to connect" : "connected but no handshake reply");
        continue;
      }
      pfds.push_back({c.fd, static_cast<short>(c.stage == 2 ? POLLIN : POLLOUT), 0});
      which.push_back(i);
    }
    if (pfds.empty()) break;
    if (::poll(pfds.data(), pfds.size(), 50) < 0 && errno != EINTR) break;
    for (size_t k = 0; k < pfds.size(); ++k)
      if (pfds[k].revents) advance(conns[which[k]], probes[which[k]], targets[which[k]], opt);
  }
  if (opt.bandwidth_bytes > 0)
    for (size_t i = 0; i < targets.size(); ++i)
      if (targets[i].bandwidth && probes[i].ok) measure_bandwidth(targets[i], opt, probes[i]);
  return probes;
}

}  // namespace dd::cluster
