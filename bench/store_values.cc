// store_values: how far can a token holder grow the master's memory? CLIENTS authenticated connections to an
// embedded store (production caps) each set 4 MiB values under new keys for SECONDS or until the store
// refuses them; prints what was stored, the first refusal and the time. Run it under `/usr/bin/time -v` for
// the master's (this process's) maximum resident size. Usage: store_values [SECONDS] [CLIENTS]
// (default 20 4). Linux only.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loopback_master.h"
#include "rendezvous/auth.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"

using namespace dd::rendezvous;

int main(int argc, char** argv) {
  const int seconds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  const int clients = argc > 2 ? std::max(1, std::atoi(argv[2])) : 4;
  std::string token;
  auto server = start_loopback_master("store_values", &token);
  if (!server) return 2;
  const auto t0 = Clock::now();
  const auto end = t0 + std::chrono::seconds(seconds);
  const std::string value(wire::Limits{}.max_value - 64, 'v');
  std::atomic<uint64_t> stored{0}, refused{0};
  std::mutex mu;
  std::string first_refusal;
  std::vector<std::thread> ts;
  for (int i = 0; i < clients; ++i)
    ts.emplace_back([&, i] {
      auto c = TcpStoreClient::connect({"127.0.0.1", server->port()}, token,
                                       deadline_in(std::chrono::seconds(10)));
      for (int k = 0; c && Clock::now() < end; ++k) {
        auto r = (*c)->set("flood/" + std::to_string(i) + "/" + std::to_string(k), value, end);
        if (r) {
          stored += value.size();
          continue;
        }
        ++refused;
        std::lock_guard lock(mu);
        if (first_refusal.empty()) first_refusal = r.error().what;
        break;  // refused: this client is done
      }
    });
  for (auto& t : ts) t.join();
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("clients=%d: stored %.0f MiB in %.1f s; %llu client(s) refused%s%s\n", clients,
              stored.load() / 1048576.0, took, (unsigned long long)refused.load(),
              first_refusal.empty() ? "" : ", first: ", first_refusal.c_str());
  return 0;
}
