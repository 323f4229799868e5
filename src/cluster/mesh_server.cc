// Mesh listener: one socket per candidate address, a poll loop accepting peers, and a bounded thread per
// connection that answers the handshake and, when asked, sinks and echoes bandwidth bytes.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "cluster/mesh.h"
#include "cluster/mesh_wire.h"
#include "nccl/if_select.h"
#include "rules/rule_util.h"

namespace dd::cluster {

using namespace mesh_wire;

std::vector<MeshEndpoint> mesh_candidates(const probe::NetFacts& net, const std::string& nccl_setting) {
  std::vector<MeshEndpoint> out;
  bool setting = nccl_setting.size() > 1;
  for (const auto& i : net.interfaces) {
    if (!i.up || i.kind == "loopback") continue;
    if (rules::iface_is_local_only(i) && !(setting && nccl::nccl_if_list_selects(nccl_setting, i.name)))
      continue;
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

}  // namespace dd::cluster
