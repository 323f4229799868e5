// The process client model of store_scale (see store_scale_procs.h): fork the client processes first, start
// the server in this (pinned) process, hand each child the port and the start instant, collect each child's
// slowest client, keep every connection open until all are through, then let the children go.
#include "store_scale_procs.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"

using namespace dd::rendezvous;

namespace {

int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

struct Child {
  pid_t pid = -1;
  int ctl = -1;     // parent writes "port start_ns\n"; closing it releases the child's connections
  int result = -1;  // child writes "released_ms failures joined_ms published_ms added_ms\n" (its slowest)
};

// The instants (ms after the start) at which one client had joined, published, added and was released.
struct Steps {
  double joined = -1, published = -1, added = -1, released = -1;
};

// One client: the same steps as store_scale's threads. released stays -1 on a failure.
Steps one_client(int rank, int n, uint16_t port, const std::string& token, int64_t start_ns,
                 const ProcsRun& r, std::unique_ptr<TcpStoreClient>* keep) {
  const std::string facts(2048, 'f');
  auto since = [&] { return double(mono_ns() - start_ns) / 1e6; };
  Steps s;
  auto deadline = deadline_in(std::chrono::seconds(120));
  // As a joining node does (open_store): the proof goes with the first request.
  auto c = TcpStoreClient::connect({"127.0.0.1", port}, token, deadline,
                                   ClientOptions{.verdict_with_first_answer = !r.verdict_at_connect});
  if (!c) return s;
  s.joined = since();
  int64_t arrived = 0;
  if (r.one_by_one) {
    if (!(*c)->set("facts/" + std::to_string(rank), facts, deadline)) return s;
    s.published = since();
    auto v = (*c)->add("arrived", 1, deadline);
    if (!v) return s;
    arrived = *v;
  } else {  // publish and count in one round trip, as TCPStore's set (which has no answer) and add do
    auto v = (*c)->pipeline(
        {StoreOp::set("facts/" + std::to_string(rank), facts), StoreOp::add("arrived", 1)}, deadline);
    if (!v) return s;
    s.published = since();
    arrived = v->back();
  }
  s.added = since();
  if (arrived == n && !(*c)->set("done", "1", deadline)) return s;
  if (!(*c)->wait({"done"}, deadline)) return s;
  s.released = since();
  *keep = std::move(*c);
  return s;
}

[[noreturn]] void child_main(const ProcsRun& r, int index, int ctl, int result) {
  if (r.pin) sched_setaffinity(0, sizeof(cpu_set_t), &r.client_cpus);
  char buf[128] = {};
  ssize_t got = read(ctl, buf, sizeof(buf) - 1);
  unsigned port = 0;
  long long start_ns = 0;
  if (got <= 0 || std::sscanf(buf, "%u %lld", &port, &start_ns) != 2) _exit(2);
  std::vector<int> ranks;
  for (int k = index; k < r.n; k += r.procs) ranks.push_back(k);
  // One descriptor table big enough for every connection of this process, grown before the start: growing
  // it during the burst waits for RCU grace periods in a threaded process (the TCPStore clients get the same
  // in tools/device/store_vs_torch.py). Thousands of real nodes have one connection each and never grow it.
  if (int base = open("/dev/null", O_RDONLY | O_CLOEXEC); base >= 0) {
    int top = fcntl(base, F_DUPFD_CLOEXEC, int(ranks.size()) + 64);
    close(base);
    if (top >= 0) close(top);
  }
  std::vector<Steps> steps(ranks.size());
  std::vector<std::unique_ptr<TcpStoreClient>> keep(ranks.size());
  std::vector<std::thread> threads;
  threads.reserve(ranks.size());
  // A client thread that is through stays blocked until the process ends, as the TCPStore clients stay in
  // their second wait: threads exiting (stack unmaps, TLB shootdowns across the process's CPUs) while
  // others are still being released would be the harness's cost, not the store's.
  std::mutex mu;
  std::condition_variable all_through, never;
  size_t through = 0;
  for (size_t i = 0; i < ranks.size(); ++i)
    threads.emplace_back([&, i] {
      // One sleep to the start instant (as the TCPStore clients' time.sleep): polling threads would crowd the
      // CPUs at the start.
      timespec at{time_t(start_ns / 1000000000), long(start_ns % 1000000000)};
      while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
      }
      steps[i] = one_client(ranks[i], r.n, uint16_t(port), r.token, start_ns, r, &keep[i]);
      std::unique_lock lock(mu);
      if (++through == ranks.size()) all_through.notify_one();
      never.wait(lock, [] { return false; });  // until _exit below
    });
  {
    std::unique_lock lock(mu);
    all_through.wait(lock, [&] { return through == ranks.size(); });
  }
  int failures = 0;
  Steps worst;
  for (const auto& s : steps) {
    failures += s.released < 0;
    worst.joined = std::max(worst.joined, s.joined);
    worst.published = std::max(worst.published, s.published);
    worst.added = std::max(worst.added, s.added);
    worst.released = std::max(worst.released, s.released);
  }
  dprintf(result, "%.3f %d %.3f %.3f %.3f\n", worst.released, failures, worst.joined, worst.published,
          worst.added);
  while (read(ctl, buf, sizeof(buf)) > 0) {
  }  // EOF: everyone is through; the threads and their connections end with this process
  _exit(0);
}

}  // namespace

bool parse_cpu_list(const std::string& s, cpu_set_t* out) {
  CPU_ZERO(out);
  size_t pos = 0;
  while (pos < s.size()) {
    size_t end = s.find(',', pos);
    std::string item = s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    int a = -1, b = -1;
    if (std::sscanf(item.c_str(), "%d-%d", &a, &b) == 2 && a >= 0 && b >= a) {
      for (int c = a; c <= b; ++c) CPU_SET(c, out);
    } else if (std::sscanf(item.c_str(), "%d", &a) == 1 && a >= 0) {
      CPU_SET(a, out);
    } else {
      return false;
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return CPU_COUNT(out) > 0;
}

double run_procs_round(const ProcsRun& r) {
  std::vector<Child> kids(size_t(r.procs));
  for (int p = 0; p < r.procs; ++p) {
    int c[2], res[2];
    if (pipe2(c, O_CLOEXEC) != 0 || pipe2(res, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
      close(c[1]);
      close(res[0]);
      for (int q = 0; q < p; ++q) {  // the earlier children's pipes: their EOFs must not wait for this one
        close(kids[size_t(q)].ctl);
        close(kids[size_t(q)].result);
      }
      child_main(r, p, c[0], res[1]);
    }
    close(c[0]);
    close(res[1]);
    kids[size_t(p)] = {pid, c[1], res[0]};
  }
  if (r.pin) sched_setaffinity(0, sizeof(cpu_set_t), &r.server_cpus);
  ServerOptions so;
  so.bind_host = "127.0.0.1";
  so.token = r.token;
  so.expected_clients = size_t(r.n);
  so.threads = r.server_threads;
  // Every client comes from this one address here, as thousands of nodes would from thousands: the
  // caps on not-yet-authenticated connections (per address and in all) would otherwise queue them.
  so.max_pending_per_peer = so.max_pending = so.expected_clients + 16;
  if (std::ifstream in("/proc/sys/net/core/somaxconn"); !(in >> so.somaxconn)) so.somaxconn = 0;
  rusage ru0{};
  getrusage(RUSAGE_SELF, &ru0);  // this process runs only the server's thread(s) during the round
  auto server = TcpStoreServer::start(so);
  if (!server) {
    std::fprintf(stderr, "server: %s\n", server.error().message().c_str());
    for (auto& k : kids) kill(k.pid, SIGKILL);
  }
  const int64_t start_ns = mono_ns() + int64_t(r.start_delay_s * 1e9);
  for (auto& k : kids)
    dprintf(k.ctl, "%u %lld\n", server ? unsigned((*server)->port()) : 0u, (long long)start_ns);
  double worst = 0, joined = 0, published = 0, added = 0;
  int failures = 0;
  for (auto& k : kids) {
    char buf[128] = {};
    double ms = -1, j = -1, p = -1, a = -1;
    int f = 1;
    if (read(k.result, buf, sizeof(buf) - 1) > 0) std::sscanf(buf, "%lf %d %lf %lf %lf", &ms, &f, &j, &p, &a);
    worst = std::max(worst, ms);
    joined = std::max(joined, j);
    published = std::max(published, p);
    added = std::max(added, a);
    failures += f;
  }
  rusage ru1{};
  getrusage(RUSAGE_SELF, &ru1);
  auto cpu_ms = [](const rusage& a, const rusage& b, bool sys) {
    const timeval& x = sys ? a.ru_stime : a.ru_utime;
    const timeval& y = sys ? b.ru_stime : b.ru_utime;
    return double(y.tv_sec - x.tv_sec) * 1e3 + double(y.tv_usec - x.tv_usec) / 1e3;
  };
  size_t facts = server ? (*server)->keys("facts/").size() : 0;
  for (auto& k : kids) {
    close(k.ctl);
    close(k.result);
    waitpid(k.pid, nullptr, 0);
  }
  std::printf(
      "N=%-5d procs=%-3d join+publish+barrier %7.1f ms  facts on master %zu  failures %d  server cpu user "
      "%.0f "
      "sys %.0f ms  (last joined %.1f, published %.1f, added %.1f ms)\n",
      r.n, r.procs, worst, facts, failures, cpu_ms(ru0, ru1, false), cpu_ms(ru0, ru1, true), joined,
      published, added);
  std::fflush(stdout);
  return failures == 0 && facts == size_t(r.n) ? worst : -1;
}
