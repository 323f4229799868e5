// Test helpers for the rendezvous tests: a throwaway etcd on loopback, free ports, raw sockets. Tests only.
#pragma once
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "rendezvous/etcd_store.h"

namespace dd::rendezvous::testing {

// The deadline for calls that answer at once on a healthy store: generous, because a loaded CI machine is
// slow.
inline Deadline soon() { return deadline_in(std::chrono::seconds(20)); }

inline uint16_t free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

// A raw TCP connection to dst:port (blocking; default 127.0.0.1), for feeding the server bytes by hand; from
// the source address src when given (any 127/8 address is local: the store's per-address caps see a peer).
inline int raw_connect(uint16_t port, const char* src = nullptr, const char* dst = "127.0.0.1") {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  if (src && (::inet_pton(AF_INET, src, &a.sin_addr) != 1 ||
              ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)) {
    ::close(fd);
    return -1;
  }
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, dst, &a.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

// A socket on 127.0.0.1 that listens but never accepts or answers: the kernel completes connects into its
// backlog, so clients connect and send, then wait for an answer that never comes. Returns the fd (close it).
inline int silent_listener(uint16_t* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 || ::listen(fd, 64) != 0) {
    ::close(fd);
    return -1;
  }
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

// etcd started on 127.0.0.1 with random ports and a temp data dir; killed and removed by the destructor.
class EtcdProcess {
 public:
  static constexpr const char* kBinary = "/usr/bin/etcd";
  static bool available() { return ::access(kBinary, X_OK) == 0; }

  // One etcd shared by every test in the binary (starting one takes about a second).
  static EtcdProcess* shared() {
    static std::unique_ptr<EtcdProcess> p = [] {
      auto e = std::make_unique<EtcdProcess>();
      return e->start() ? std::move(e) : nullptr;
    }();
    return p.get();
  }

  bool start() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "dd-etcd-XXXXXX").string();  // honours TMPDIR
    if (!::mkdtemp(tmpl.data())) return false;
    dir_ = tmpl;
    client_port_ = free_port();
    uint16_t peer = free_port();
    std::string c = "http://127.0.0.1:" + std::to_string(client_port_);
    std::string p = "http://127.0.0.1:" + std::to_string(peer);
    std::vector<std::string> args = {kBinary,
                                     "--name",
                                     "dd",
                                     "--data-dir",
                                     dir_ + "/data",
                                     "--listen-client-urls",
                                     c,
                                     "--advertise-client-urls",
                                     c,
                                     "--listen-peer-urls",
                                     p,
                                     "--initial-advertise-peer-urls",
                                     p,
                                     "--initial-cluster",
                                     "dd=" + p};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string log = dir_ + "/stdout.log";
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a crashed test must not leave etcd behind
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      ::execv(kBinary, argv.data());
      ::_exit(127);
    }
    if (pid_ < 0) return false;
    auto store = EtcdStore::open(url(), "etcd-test-token", deadline_in(std::chrono::seconds(15)));
    return store.ok();
  }

  ~EtcdProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int st = 0;
      for (int i = 0; i < 50 && ::waitpid(pid_, &st, WNOHANG) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (::waitpid(pid_, &st, WNOHANG) == 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &st, 0);
      }
    }
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string url(const std::string& prefix = "") const {
    return "etcd://127.0.0.1:" + std::to_string(client_port_) + (prefix.empty() ? "" : "/" + prefix);
  }

 private:
  pid_t pid_ = -1;
  uint16_t client_port_ = 0;
  std::string dir_;
};

}  // namespace dd::rendezvous::testing
