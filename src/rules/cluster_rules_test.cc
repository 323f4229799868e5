// Tests of the cluster rules over hand-built ClusterViews (no I/O).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "rules/cluster_rule.h"

namespace dd::rules {
namespace {

using report::Finding;
using report::Severity;

probe::NetInterface ordered_iface(const std::string& name, const std::string& cidr, int order) {
  probe::NetInterface i;
  i.name = name;
  i.kind = name.rfind("docker", 0) == 0 ? "docker" : "ethernet";
  i.up = i.running = true;
  i.ipv4 = {cidr};
  i.order = order;
  return i;
}

ClusterNode node(int r, const std::string& host) {
  ClusterNode n;
  n.node_rank = r;
  n.hostname = host;
  n.ranks = {r};
  n.has_facts = true;
  n.lead.rank = r;
  n.lead.hostname = host;
  n.lead.boot_id = "boot" + std::to_string(r);
  n.lead.netns = "net:[1]";
  n.facts.host.hostname = host;
  n.facts.host.distdoctor_version = "0.1.0";
  n.facts.net.interfaces = {ordered_iface("docker0", "198.19.0.1/24", 0),
                            ordered_iface("eth0", fmt::format("198.18.0.{}/24", r + 1), 1),
                            ordered_iface("eth1", fmt::format("198.18.1.{}/24", r + 1), 2)};
  return n;
}

ClusterView view(int n) {
  ClusterView v;
  for (int r = 0; r < n; ++r) {
    v.nodes.push_back(node(r, "n" + std::to_string(r)));
    v.members.push_back(v.nodes.back().lead);
  }
  return v;
}

const Finding* find_in(const std::vector<Finding>& fs, const std::string& id, const std::string& text = "") {
  for (const auto& f : fs) {
    std::string all = f.title;
    for (const auto& e : f.evidence) all += " | " + e;
    if (f.id == id && all.find(text) != std::string::npos) return &f;
  }
  return nullptr;
}

TEST(ClusterRules, EnvDiffNamesBothSidesAndIgnoresPerRankVars) {
  auto v = view(3);
  v.nodes[2].facts.env["NCCL_SOCKET_IFNAME"] = "eth1";
  for (int r = 0; r < 3; ++r) {
    v.nodes[r].facts.env["OMPI_COMM_WORLD_RANK"] = std::to_string(r);
    v.nodes[r].facts.env["LD_LIBRARY_PATH"] = r == 1 ? "/opt/nccl/lib" : "/usr/lib";
    v.nodes[r].facts.env["HOME"] = std::to_string(r);
  }
  auto fs = run_cluster_rules(v);
  auto* f = find_in(fs, "cluster.env.diff", "NCCL_SOCKET_IFNAME is set on some nodes and not others");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::warn);
  EXPECT_NE(find_in(fs, "cluster.env.diff", "| NCCL_SOCKET_IFNAME=eth1 on n2(2)"), nullptr);
  EXPECT_NE(find_in(fs, "cluster.env.diff", "| unset on n0(0), n1(1)"), nullptr);
  EXPECT_NE(f->fix.find("-x NCCL_SOCKET_IFNAME"), std::string::npos);
  EXPECT_NE(find_in(fs, "cluster.env.diff", "LD_LIBRARY_PATH differs"), nullptr);
  EXPECT_EQ(find_in(fs, "cluster.env.diff", "OMPI_COMM_WORLD_RANK"), nullptr);
  EXPECT_EQ(find_in(fs, "cluster.env.diff", "HOME"), nullptr);
}

TEST(ClusterRules, IdentityDuplicates) {
  auto v = view(3);
  v.nodes[2].hostname = v.nodes[2].facts.host.hostname = "n1";
  v.nodes[2].facts.net.interfaces[1].ipv4 = {"198.18.0.2/24"};  // eth0 address of n1
  auto fs = run_cluster_rules(v);
  auto* h = find_in(fs, "cluster.identity.dup_hostname", "\"n1\"");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->severity, Severity::fail);
  auto* ip = find_in(fs, "cluster.identity.dup_ip", "198.18.0.2");
  ASSERT_NE(ip, nullptr);
  EXPECT_EQ(ip->severity, Severity::fail);                                // on the interface NCCL uses
  EXPECT_EQ(find_in(fs, "cluster.identity.dup_ip", "198.19.0.1"), nullptr);  // docker0 is the same everywhere
  EXPECT_EQ(find_in(fs, "cluster.identity.same_machine"), nullptr);
  EXPECT_EQ(find_in(fs, "cluster.identity.dup_mac"), nullptr);
  v.nodes[0].facts.net.interfaces[1].mac = v.nodes[1].facts.net.interfaces[2].mac = "52:54:00:12:34:56";
  fs = run_cluster_rules(v);
  EXPECT_NE(find_in(fs, "cluster.identity.dup_mac", "52:54:00:12:34:56 is on 2 nodes | n0(0) eth0 | n1(1) eth1"),
            nullptr);

  auto w = view(2);
  w.nodes[1].lead.boot_id = w.nodes[0].lead.boot_id;  // same kernel, same netns: one machine twice
  auto gs = run_cluster_rules(w);
  EXPECT_NE(find_in(gs, "cluster.identity.same_machine", "n0(0), n1(1)"), nullptr);
  w.nodes[1].lead.netns = "net:[2]";  // same kernel, other netns: containers on one host
  gs = run_cluster_rules(w);
  EXPECT_EQ(find_in(gs, "cluster.identity.same_machine"), nullptr);
  EXPECT_NE(find_in(gs, "cluster.identity.shared_kernel"), nullptr);
}

TEST(ClusterRules, RankClaimedTwice) {
  auto v = view(2);
  v.dup_claims[1] = {v.members[1], v.members[1]};
  v.dup_claims[1][1].hostname = "intruder";
  auto fs = run_cluster_rules(v);
  auto* f = find_in(fs, "cluster.identity.rank_twice", "intruder");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 1);
}

TEST(ClusterRules, ShapeAndVersions) {
  auto v = view(2);
  v.by_hand = false;
  v.nodes[0].ranks = {0, 1, 2, 3};
  for (int r = 0; r < 2; ++r) {
    auto& g = v.nodes[r].facts.gpu;
    g.nvml_loaded = true;
    g.driver_version = r ? "570.86" : "550.54";
    g.gpus.resize(r ? 4 : 2);
    for (auto& gpu : g.gpus) gpu.name = "NVIDIA H100";
    v.nodes[r].facts.nccl.libs.push_back({"/x/libnccl.so.2", "loader", 22105, r ? "2.21.5" : "2.18.1", ""});
  }
  auto fs = run_cluster_rules(v);
  EXPECT_NE(find_in(fs, "cluster.shape.procs_gt_gpus", "n0(0) runs 4 processes but has 2"), nullptr);
  EXPECT_NE(find_in(fs, "cluster.shape.gpu_count", "2: n0(0); 4: n1(1)"), nullptr);
  EXPECT_EQ(find_in(fs, "cluster.shape.gpu_model"), nullptr);
  EXPECT_NE(find_in(fs, "cluster.version.driver", "550.54: n0(0)"), nullptr);
  EXPECT_NE(find_in(fs, "cluster.version.nccl", "2.21.5 (loader): n1(1)"), nullptr);
  EXPECT_NE(find_in(fs, "cluster.version.distdoctor"), nullptr);
  EXPECT_EQ(find_in(fs, "cluster.version.distdoctor")->severity, Severity::ok);
}

MeshProbe probe(int from, int to, const std::string& ifn, bool ok, const std::string& err = "") {
  MeshProbe p;
  p.from = from;
  p.to = to;
  p.to_if = ifn;
  p.to_addr = fmt::format("198.18.{}.{}", ifn == "eth0" ? 0 : 1, to + 1);
  p.ok = ok;
  p.error = err;
  p.connect_ms = ok ? 0.2 : -1;
  return p;
}

TEST(ClusterRules, MeshFailuresAndRecommendation) {
  auto v = view(3);
  v.mesh.ran = true;
  for (auto& n : v.nodes) n.facts.env["NCCL_SOCKET_IFNAME"] = n.lead.nccl_ifname_setting = "eth1";
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      if (i == j) continue;
      v.mesh.probes.push_back(probe(i, j, "eth0", !(i == 1 && j == 0), "refused"));  // 1 -> 0 eth0 refused
      bool bad = j == 2 || i == 2;
      v.mesh.probes.push_back(probe(i, j, "eth1", !bad, "timeout"));
    }
  auto fs = run_cluster_rules(v);
  auto* u = find_in(fs, "cluster.mesh.partial", "eth1 of n2(2) (198.18.1.3) is reached from");
  EXPECT_EQ(u, nullptr);  // nobody reaches it
  auto* un = find_in(fs, "cluster.mesh.unreachable", "eth1 of n2(2)");
  ASSERT_NE(un, nullptr);
  EXPECT_EQ(un->severity, Severity::fail);  // NCCL_SOCKET_IFNAME=eth1 points NCCL at it
  EXPECT_NE(
      find_in(fs, "cluster.mesh.partial", "eth0 of n0(0) (198.18.0.1) is reached from n2(2) but not from n1(1)"),
      nullptr);
  EXPECT_NE(find_in(fs, "cluster.mesh.asymmetric", "n0(0) -> n1(1) connects, n1(1) -> n0(0) fails"), nullptr);
  auto* rec = find_in(fs, "cluster.mesh.ifname", "NCCL_SOCKET_IFNAME=eth1 does not reach every peer");
  ASSERT_NE(rec, nullptr);
  EXPECT_EQ(rec->fix.find("NCCL_SOCKET_IFNAME=eth0"), std::string::npos);  // eth0 fails 1 -> 0 too
  // Heal eth0: now it is the recommendation.
  for (auto& p : v.mesh.probes) p.ok = p.ok || p.to_if == "eth0";
  fs = run_cluster_rules(v);
  rec = find_in(fs, "cluster.mesh.ifname");
  ASSERT_NE(rec, nullptr);
  EXPECT_NE(rec->fix.find("export NCCL_SOCKET_IFNAME=eth0"), std::string::npos) << rec->fix;
}

TEST(ClusterRules, LatencyOutlierAndHealthyMesh) {
  auto v = view(3);
  v.mesh.ran = true;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (i != j) v.mesh.probes.push_back(probe(i, j, "eth0", true));
  auto fs = run_cluster_rules(v);
  EXPECT_NE(find_in(fs, "cluster.mesh.ok"), nullptr);
  EXPECT_NE(find_in(fs, "cluster.mesh.ifname_ok"), nullptr);
  EXPECT_EQ(find_in(fs, "cluster.mesh.latency"), nullptr);
  v.mesh.probes[3].connect_ms = 40;
  fs = run_cluster_rules(v);
  EXPECT_NE(find_in(fs, "cluster.mesh.latency", "40.00 ms"), nullptr);
}

TEST(ClusterRules, SubnetsAndNoInterface) {
  auto v = view(2);
  v.nodes[1].facts.net.interfaces[1].ipv4 = {"10.0.0.5/16"};
  auto fs = run_cluster_rules(v);
  EXPECT_NE(find_in(fs, "cluster.net.subnets", "10.0.0.0/16: n1(1) eth0"), nullptr);
  EXPECT_NE(find_in(fs, "cluster.net.gloo_loopback", "n0(0) would use loopback: hostname n0 does not resolve"),
            nullptr);
  v.nodes[0].facts.host.resolved_addrs = {"127.0.1.1"};
  v.nodes[1].facts.env["GLOO_SOCKET_IFNAME"] = "eth0";
  fs = run_cluster_rules(v);
  EXPECT_NE(find_in(fs, "cluster.net.gloo_loopback", "resolves to 127.0.1.1"), nullptr);
  EXPECT_EQ(find_in(fs, "cluster.net.gloo_loopback", "n1(1)"), nullptr);
  v.nodes[1].facts.env["NCCL_SOCKET_IFNAME"] = v.nodes[1].lead.nccl_ifname_setting = "=ens9";
  fs = run_cluster_rules(v);
  EXPECT_NE(find_in(fs, "cluster.net.no_interface", "n1(1)"), nullptr);
}

}  // namespace
}  // namespace dd::rules
