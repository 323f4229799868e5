// Helpers of the join protocol tests (join_test.cc, join_liveness_test.cc): a node's config with fake facts
// and a real mesh server on loopback, ranks run as threads, and a finding lookup. Tests only.
#pragma once
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cluster/join.h"
#include "cluster/mesh.h"

namespace dd::cluster::join_testing {

using namespace std::chrono_literals;

// The report has finding `id`, and `text` in its title or evidence when given.
inline bool has(const report::Report& r, const std::string& id, const std::string& text = "") {
  for (const auto& f : r.findings)
    if (f.id == id &&
        (text.empty() ||
         (f.title + " " + fmt::format("{}", fmt::join(f.evidence, " "))).find(text) != std::string::npos))
      return true;
  return false;
}

inline probe::NodeFacts fake_facts(const std::string& host, const std::string& ifname_env) {
  probe::NodeFacts f;
  f.host.hostname = host;
  f.host.boot_id = "boot-" + host;
  f.host.netns = "net:[1]";
  probe::NetInterface i;
  i.name = "eth0";
  i.kind = "ethernet";
  i.up = i.running = true;
  i.ipv4 = {"127.0.0.1/8"};
  f.net.interfaces = {i};
  if (!ifname_env.empty()) f.env["NCCL_SOCKET_IFNAME"] = ifname_env;
  return f;
}

struct Node {
  JoinConfig cfg;
  std::unique_ptr<MeshServer> server;
  JoinOutcome out;
};

inline std::unique_ptr<Node> make_node(int rank, int world, const std::string& host,
                                       std::chrono::milliseconds timeout,
                                       const std::string& ifname_env = "") {
  auto n = std::make_unique<Node>();
  auto facts = fake_facts(host, ifname_env);
  n->cfg.world = world;
  n->cfg.self.world = world;  // as make_self says it: the --nnodes this node was started with
  n->cfg.timeout = timeout;
  n->cfg.job_tag = 42;
  n->cfg.self.rank = rank;
  n->cfg.self.hostname = host;
  n->cfg.self.boot_id = facts.host.boot_id;
  n->cfg.self.netns = facts.host.netns;
  n->cfg.self.has_facts = true;
  n->cfg.facts_json = nlohmann::json(facts).dump();
  auto s = MeshServer::start({{"eth0", "127.0.0.1", 0}}, 42, rank);
  EXPECT_TRUE(s.ok());
  n->server = std::move(*s);
  n->cfg.self.endpoints = n->server->endpoints();
  return n;
}

inline void run_all(rendezvous::Store& store, std::vector<std::unique_ptr<Node>>& nodes) {
  std::vector<std::thread> ts;
  for (auto& n : nodes) ts.emplace_back([&store, &n] { n->out = run_join(store, n->cfg); });
  for (auto& t : ts) t.join();
}

}  // namespace dd::cluster::join_testing
