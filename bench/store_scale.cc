// store_scale: N clients against one embedded TCP store server: join (connect + authenticate), publish a ~2
// KB facts value and add to a counter in one round trip (Store::pipeline), barrier (the client that brings
// the counter to N sets "done"; everyone waits for it). Prints wall time per N.
// Usage: store_scale [--token T] [--procs P [--server-cpus LIST --client-cpus LIST] [--rounds R]
// [--server-threads T] [--verdict-at-connect] [--one-by-one]] [N ...] (default 256 1024 4096; T 0: the
// server's default, one per server CPU up to 4; --verdict-at-connect: clients wait for the auth verdict in
// connect, as before the proof rode with the first request; --one-by-one: publish and add as two round trips,
// as before the pipeline). Without --procs the clients are threads of this process (small stacks); with it,
// threads spread over P client processes (store_scale_procs.h), the fair model shared with the TCPStore
// comparison (tools/device/store_vs_torch.sh), and each N runs R rounds with their median printed.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "rendezvous/socket_io.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"
#include "store_scale_procs.h"

using namespace dd::rendezvous;
using Ms = std::chrono::duration<double, std::milli>;

namespace {

struct Run {
  int n = 0;
  uint16_t port = 0;
  std::string token;
  std::string facts;
  std::mutex mu;
  std::condition_variable cv;
  bool go = false;
  Clock::time_point t0;
  std::atomic<int> failures{0};
  std::vector<double> joined, published, added, released;  // ms after t0, per client
  std::string first_error;
};

struct Arg {
  Run* run;
  int rank;
};

void* client_main(void* p) {
  auto* a = static_cast<Arg*>(p);
  Run& r = *a->run;
  {
    std::unique_lock lock(r.mu);
    r.cv.wait(lock, [&] { return r.go; });
  }
  auto fail = [&](const dd::Error& e) {
    if (r.failures++ == 0) {
      std::lock_guard lock(r.mu);
      r.first_error = e.message();
    }
    return nullptr;
  };
  auto deadline = deadline_in(std::chrono::seconds(60));
  // As a joining node does (open_store): the proof goes with the first request.
  auto c = TcpStoreClient::connect({"127.0.0.1", r.port}, r.token, deadline,
                                   ClientOptions{.verdict_with_first_answer = true});
  if (!c) return fail(c.error());
  r.joined[a->rank] = Ms(Clock::now() - r.t0).count();
  // Publish and count in one round trip (Store::pipeline).
  auto v = (*c)->pipeline(
      {StoreOp::set("facts/" + std::to_string(a->rank), r.facts), StoreOp::add("arrived", 1)}, deadline);
  if (!v) return fail(v.error());
  r.published[a->rank] = r.added[a->rank] = Ms(Clock::now() - r.t0).count();
  if (v->back() == r.n) {
    if (auto s = (*c)->set("done", "1", deadline); !s) return fail(s.error());
  }
  if (auto s = (*c)->wait({"done"}, deadline); !s) return fail(s.error());
  r.released[a->rank] = Ms(Clock::now() - r.t0).count();
  return nullptr;
}

double max_of(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, x);
  return m;
}

double median_of(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// STORE_SCALE_DEBUG: the server's counters and the slowest client's timeline.
void print_debug(const Run& r, const TcpStoreServer& server) {
  auto st = server.stats();
  std::printf("  server: accepted %lu authenticated %lu dropped %lu\n", (unsigned long)st.accepted,
              (unsigned long)st.authenticated, (unsigned long)st.dropped_bad_input);
  int slow = static_cast<int>(std::max_element(r.released.begin(), r.released.end()) - r.released.begin());
  int last_add = static_cast<int>(std::max_element(r.added.begin(), r.added.end()) - r.added.begin());
  std::printf(
      "  slowest client %d: joined %.1f published %.1f added %.1f released %.1f; last add by %d at %.1f\n",
      slow, r.joined[slow], r.published[slow], r.added[slow], r.released[slow], last_add, r.added[last_add]);
}

bool run_once(int n, const std::string& token) {
  ServerOptions so;
  so.bind_host = "127.0.0.1";
  so.token = token;
  so.expected_clients = static_cast<size_t>(n);
  // Every client comes from this one address here, as thousands of nodes would from thousands: the
  // caps on not-yet-authenticated connections (per address and in all) would otherwise queue them.
  so.max_pending_per_peer = so.max_pending = so.expected_clients + 16;
  if (std::ifstream in("/proc/sys/net/core/somaxconn"); !(in >> so.somaxconn)) so.somaxconn = 0;
  if (const char* nice = getenv("STORE_SCALE_SERVER_NICE")) so.thread_nice = std::atoi(nice);
  auto server = TcpStoreServer::start(so);
  if (!server) {
    std::fprintf(stderr, "server: %s\n", server.error().message().c_str());
    return false;
  }
  Run r;
  r.n = n;
  r.port = (*server)->port();
  r.token = token;
  r.facts = std::string(2048, 'f');
  r.joined.assign(n, 0);
  r.published.assign(n, 0);
  r.released.assign(n, 0);
  r.added.assign(n, 0);
  std::vector<Arg> args(n);
  std::vector<pthread_t> threads(n);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  auto spawn_start = Clock::now();
  for (int i = 0; i < n; ++i) {
    args[i] = {&r, i};
    if (int e = pthread_create(&threads[i], &attr, client_main, &args[i]); e != 0) {
      std::fprintf(stderr, "pthread_create #%d: %s\n", i, std::strerror(e));
      std::exit(1);
    }
  }
  double spawn_ms = Ms(Clock::now() - spawn_start).count();
  {
    std::lock_guard lock(r.mu);
    r.go = true;
    r.t0 = Clock::now();
  }
  r.cv.notify_all();
  for (auto& t : threads) pthread_join(t, nullptr);
  double joined_all = Ms(Clock::now() - r.t0).count();
  // The figure: from the start signal until the last client has passed the barrier.
  double wall = max_of(r.released);
  // The master's view after the barrier: every facts key present.
  size_t facts = (*server)->keys("facts/").size();
  std::printf(
      "N=%-5d join+publish+barrier %7.1f ms  (all joined %6.1f ms [median %.1f], all published %6.1f ms)  "
      "facts on master %zu  failures %d  [threads started in %.0f ms, exited by %.0f ms; not counted]\n",
      n, wall, max_of(r.joined), median_of(r.joined), max_of(r.published), facts, r.failures.load(), spawn_ms,
      joined_all);
  if (getenv("STORE_SCALE_DEBUG")) print_debug(r, **server);
  if (r.failures) std::printf("  first error: %s\n", r.first_error.c_str());
  std::fflush(stdout);
  return r.failures == 0 && facts == static_cast<size_t>(n);
}

// --procs mode: R rounds per N, one line each, then the median.
bool run_procs_mode(const std::vector<int>& ns, ProcsRun base, int rounds, long fds) {
  bool ok = true;
  for (int n : ns) {
    // This process holds the server's connections; each client process its share.
    const long need = n + 64L + 2L * base.procs;
    if (need > fds) {
      std::printf("N=%d needs about %ld file descriptors in the server process (limit %ld): skipped\n", n,
                  need, fds);
      continue;
    }
    base.n = n;
    std::vector<double> walls;
    for (int i = 0; i < rounds; ++i) {
      double w = run_procs_round(base);
      ok = ok && w >= 0;
      if (w >= 0) walls.push_back(w);
    }
    if (walls.empty()) continue;
    std::string all;
    for (double w : walls) all += (all.empty() ? "" : " ") + std::to_string(int(w + 0.5));
    std::printf("median N=%d procs=%d join+publish+barrier %.1f ms over %zu rounds (%s)\n", n, base.procs,
                median_of(walls), walls.size(), all.c_str());
    std::fflush(stdout);
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string token = "store-scale-benchmark-token";
  std::vector<int> ns;
  ProcsRun pr;
  pr.procs = 0;
  int rounds = 5;
  auto cpus = [&](const char* what, const char* v, cpu_set_t* set) {
    if (!parse_cpu_list(v, set)) {
      std::fprintf(stderr, "store_scale: bad %s \"%s\"\n", what, v);
      std::exit(2);
    }
    pr.pin = true;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has = i + 1 < argc;
    if (a == "--token" && has)
      token = argv[++i];
    else if (a == "--procs" && has)
      pr.procs = std::atoi(argv[++i]);
    else if (a == "--rounds" && has)
      rounds = std::max(1, std::atoi(argv[++i]));
    else if (a == "--verdict-at-connect")
      pr.verdict_at_connect = true;
    else if (a == "--one-by-one")
      pr.one_by_one = true;
    else if (a == "--server-threads" && has)
      pr.server_threads = std::max(0, std::atoi(argv[++i]));
    else if (a == "--server-cpus" && has)
      cpus(a.c_str(), argv[++i], &pr.server_cpus);
    else if (a == "--client-cpus" && has)
      cpus(a.c_str(), argv[++i], &pr.client_cpus);
    else if (std::atoi(a.c_str()) > 0)
      ns.push_back(std::atoi(a.c_str()));
    else {
      std::fprintf(stderr, "store_scale: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (ns.empty()) ns = {256, 1024, 4096};
  long fds = raise_nofile_limit();
  if (pr.procs > 0) {
    pr.token = token;
    std::printf(
        "store_scale: embedded TCP store (%s server threads), clients as threads in %d processes%s, "
        "RLIMIT_NOFILE %ld\n",
        pr.server_threads ? std::to_string(pr.server_threads).c_str() : "default", pr.procs,
        pr.pin ? " pinned apart from the server" : "", fds);
    return run_procs_mode(ns, pr, rounds, fds) ? 0 : 1;
  }
  std::printf(
      "store_scale: embedded TCP store, clients as threads (256 KiB stacks), RLIMIT_NOFILE %ld, "
      "default server threads\n",
      fds);
  bool ok = true;
  for (int n : ns) {
    if (2L * n + 64 > fds) {
      std::printf("N=%d needs about %d file descriptors (limit %ld): skipped\n", n, 2 * n + 64, fds);
      ok = false;
      continue;
    }
    ok = run_once(n, token) && ok;
  }
  return ok ? 0 : 1;
}
