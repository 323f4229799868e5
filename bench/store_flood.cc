// store_flood: do idle unauthenticated connections keep real nodes out? Child processes open IDLE raw
// connections to an embedded store (production caps), spread over ADDRS source addresses of 127/8, and hold
// them without a word; then REAL clients join (connect + authenticate), publish a value and meet at a
// barrier. Prints the time for the real clients with and without the flood and the server's counters; exits
// 1 when a real client failed. Usage: store_flood [IDLE] [ADDRS] [REAL] (default 20000 80 64). Linux only.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "loopback_master.h"
#include "rendezvous/auth.h"
#include "rendezvous/socket_io.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"

using namespace dd::rendezvous;
using Ms = std::chrono::duration<double, std::milli>;

namespace {

constexpr int kPerChild = 9000;  // under a 10k-20k open-file limit per process

// A child that opens `count` idle connections from 127.1.x.y source addresses, reports how many are open
// on `ready` and then sleeps until killed.
pid_t start_idle_child(uint16_t port, int first, int count, int addrs, int ready) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  raise_nofile_limit();
  std::vector<int> fds;
  for (int i = first; i < first + count; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) break;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    int slot = i % addrs;
    a.sin_addr.s_addr =
        htonl((127u << 24) | (1u << 16) | (uint32_t(slot / 250) << 8) | uint32_t(slot % 250 + 1));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd);
      continue;
    }
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0)
      fds.push_back(fd);
    else
      ::close(fd);
  }
  int n = static_cast<int>(fds.size());
  [[maybe_unused]] auto w = ::write(ready, &n, sizeof n);
  ::pause();
  ::_exit(0);
}

// REAL clients: connect, publish, barrier. Returns the wall time, or a negative value when one failed.
double real_clients(uint16_t port, const std::string& token, int real, int round) {
  std::atomic<int> failed{0};
  auto t0 = Clock::now();
  std::vector<std::thread> ts;
  for (int i = 0; i < real; ++i)
    ts.emplace_back([&, i] {
      auto deadline = deadline_in(std::chrono::seconds(30));
      auto c = TcpStoreClient::connect({"127.0.0.1", port}, token, deadline);
      std::string p = "r" + std::to_string(round) + "/";
      if (!c || !(*c)->set(p + "facts/" + std::to_string(i), std::string(2048, 'f'), deadline) ||
          !(*c)->add(p + "count", 1, deadline) || !(*c)->wait({p + "done"}, deadline)) {
        ++failed;
        return;
      }
    });
  std::thread closer([&] {
    auto c = TcpStoreClient::connect({"127.0.0.1", port}, token, deadline_in(std::chrono::seconds(30)));
    std::string p = "r" + std::to_string(round) + "/";
    while (c) {
      auto n = (*c)->add(p + "count", 0, deadline_in(std::chrono::seconds(5)));
      if (!n || *n >= real || Clock::now() - t0 > std::chrono::seconds(30)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (c) (void)(*c)->set(p + "done", "1", deadline_in(std::chrono::seconds(5)));
  });
  for (auto& t : ts) t.join();
  closer.join();
  return failed ? -1.0 : Ms(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int idle = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int addrs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 80;
  const int real = argc > 3 ? std::max(1, std::atoi(argv[3])) : 64;
  raise_nofile_limit();
  std::string token;
  auto server = start_loopback_master("store_flood", &token);
  if (!server) return 2;
  const uint16_t port = server->port();
  double quiet = real_clients(port, token, real, 0);
  int ready[2];
  if (::pipe(ready) != 0) return 2;
  std::vector<pid_t> kids;
  for (int first = 0; first < idle; first += kPerChild)
    kids.push_back(start_idle_child(port, first, std::min(kPerChild, idle - first), addrs, ready[1]));
  int opened = 0;
  for (size_t i = 0; i < kids.size(); ++i) {
    int n = 0;
    if (::read(ready[0], &n, sizeof n) == sizeof n) opened += n;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the server accepts the backlog
  double flooded = real_clients(port, token, real, 1);
  ServerStats st = server->stats();
  for (pid_t k : kids) ::kill(k, SIGKILL), ::waitpid(k, nullptr, 0);
  std::printf(
      "idle=%d (opened %d from %d addresses) real=%d: quiet %.1f ms, flooded %.1f ms; server accepted "
      "%llu, refused or dropped by the caps %llu, open while flooded %llu\n",
      idle, opened, addrs, real, quiet, flooded, (unsigned long long)st.accepted,
      (unsigned long long)st.refused_cap, (unsigned long long)st.open_connections);
  if (quiet < 0 || flooded < 0) {
    std::printf("FAIL: a real client was not served\n");
    return 1;
  }
  return 0;
}
