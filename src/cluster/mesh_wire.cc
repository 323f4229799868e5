// Mesh wire helpers (see mesh_wire.h).
#include "cluster/mesh_wire.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace dd::cluster::mesh_wire {

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

}  // namespace dd::cluster::mesh_wire
