// The join protocol at scale over the embedded TCP store: N ranks as threads, each with its own client
// (DD_JOIN_SCALE=N to change N; default 256 keeps the suite fast). Only rank 0 of every 8 publishes facts,
// as the first local rank of an 8-GPU node would; the mesh is skipped (no endpoints).
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "cluster/join.h"
#include "rendezvous/tcp_store_client.h"
#include "rendezvous/tcp_store_server.h"

namespace dd::cluster {
namespace {

using namespace std::chrono_literals;

TEST(ClusterJoinScale, ManyRanksOverTcpStore) {
  int n = 256;
  if (const char* e = std::getenv("DD_JOIN_SCALE")) n = std::max(2, std::atoi(e));
  rendezvous::ServerOptions so;
  so.bind_host = "127.0.0.1";
  so.token = "scale";
  auto server = rendezvous::TcpStoreServer::start(so);
  ASSERT_TRUE(server.ok()) << server.error().message();
  rendezvous::HostPort hp{"127.0.0.1", (*server)->port()};
  probe::NodeFacts facts;
  facts.host.hostname = "node";
  std::string facts_json = nlohmann::json(facts).dump();
  std::vector<JoinOutcome> outs(n);
  std::atomic<int> connect_failures{0};
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> ts;
  for (int r = 0; r < n; ++r)
    ts.emplace_back([&, r] {
      auto c = rendezvous::TcpStoreClient::connect(hp, "scale", rendezvous::deadline_in(30s));
      if (!c) {
        connect_failures++;
        return;
      }
      JoinConfig cfg;
      cfg.world = n;
      cfg.by_hand = false;
      cfg.timeout = 60s;
      cfg.start = t0;
      cfg.self.rank = r;
      cfg.self.local_rank = r % 8;
      cfg.self.node_rank = r / 8;
      cfg.self.hostname = "node" + std::to_string(r / 8);
      cfg.self.has_facts = r % 8 == 0;
      if (cfg.self.has_facts) cfg.facts_json = facts_json;
      outs[r] = run_join(**c, cfg);
      if (r % 512 == 1)
        fprintf(stderr, "rank %d done %.3f\n", r,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    });
  for (auto& t : ts) t.join();
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("join of %d ranks (%d nodes) over the embedded TCP store: %.2f s\n", n, (n + 7) / 8, secs);
  EXPECT_EQ(connect_failures.load(), 0);
  EXPECT_TRUE(outs[0].leader);
  int ok = 0, ended = 0;
  for (const auto& f : outs[0].report.findings)
    if (f.id == "cluster.join.ok" && f.title.find(std::to_string(n) + " processes") != std::string::npos)
      ok++;
  EXPECT_EQ(ok, 1);
  for (int r = 1; r < n; ++r) ended += outs[r].report.findings.empty() && !outs[r].report.title.empty();
  EXPECT_EQ(ended, n - 1);  // every other rank learnt the run is over, none ended alone
  EXPECT_LT(secs, 20.0);
  (*server)->stop();
}

}  // namespace
}  // namespace dd::cluster
