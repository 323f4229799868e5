// pick_free_ports (see free_ports.h): hold all the sockets until every port is known, so the ports differ.
#include "launch/free_ports.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace dd::launch {

Result<std::vector<int>> pick_free_ports(int count) {
  std::vector<int> fds, ports;
  Status failed = ok_status();
  for (int i = 0; i < count && failed; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      failed = Error::from_errno("socket");
      break;
    }
    fds.push_back(fd);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t len = sizeof(a);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      failed = Error::from_errno("bind to a free port");
      break;
    }
    ports.push_back(ntohs(a.sin_port));
  }
  for (int fd : fds) ::close(fd);
  if (!failed) return failed.error();
  return ports;
}

}  // namespace dd::launch
