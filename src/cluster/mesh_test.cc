// Tests of the TCP mesh on loopback: success with latency and bandwidth, refused, wrong peer, other job,
// candidates and the text matrix.
#include "cluster/mesh.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace dd::cluster {
namespace {

using namespace std::chrono_literals;

int closed_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);  // nothing listens there now
  return ntohs(a.sin_port);
}

TEST(ClusterMesh, ConnectsClassifiesAndMeasures) {
  auto s = MeshServer::start({{"lo", "127.0.0.1", 0}}, 7, 5);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ((*s)->endpoints().size(), 1u);
  MeshEndpoint ep = (*s)->endpoints()[0];
  EXPECT_GT(ep.port, 0);
  std::vector<MeshTarget> targets = {
      {1, 5, ep, true},                                   // the right node, with bandwidth
      {2, 6, ep, false},                                  // expects rank 6, rank 5 answers
      {3, 5, {"lo", "127.0.0.1", closed_port()}, false},  // nobody listens
  };
  MeshRunOptions o;
  o.job_tag = 7;
  o.from_node = 0;
  o.bandwidth_bytes = 1 << 20;
  o.connect_timeout = 1s;
  auto t0 = std::chrono::steady_clock::now();
  auto p = run_mesh(targets, o);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_TRUE(p[0].ok) << p[0].error << " " << p[0].detail;
  EXPECT_GE(p[0].connect_ms, 0);
  EXPECT_GT(p[0].mbps_send, 0);
  EXPECT_GT(p[0].mbps_recv, 0);
  EXPECT_EQ(p[0].from, 0);
  EXPECT_EQ(p[0].to, 1);
  EXPECT_FALSE(p[1].ok);
  EXPECT_EQ(p[1].error, "wrong peer");
  EXPECT_NE(p[1].detail.find("rank 5"), std::string::npos);
  EXPECT_FALSE(p[2].ok);
  EXPECT_EQ(p[2].error, "refused");
  // Another job's listener answers with its own tag: reported as such, not as success.
  o.job_tag = 8;
  o.bandwidth_bytes = 0;
  auto q = run_mesh({{1, 5, ep, false}}, o);
  EXPECT_EQ(q[0].error, "wrong peer");
  EXPECT_NE(q[0].detail.find("another distdoctor job"), std::string::npos);
  (*s)->stop();
}

TEST(ClusterMesh, CandidatesSkipLoopbackDockerAndDownLinks) {
  probe::NetFacts net;
  auto add = [&](const char* name, const char* kind, bool up, std::vector<std::string> v4,
                 std::vector<std::string> v6 = {}) {
    probe::NetInterface i;
    i.name = name;
    i.kind = kind;
    i.up = up;
    i.ipv4 = v4;
    i.ipv6 = v6;
    net.interfaces.push_back(i);
  };
  add("lo", "loopback", true, {"127.0.0.1/8"});
  add("docker0", "docker", true, {"198.19.0.1/24"});
  add("eth0", "ethernet", true, {"198.18.0.1/24"});
  add("eth1", "ethernet", false, {"198.18.1.1/24"});
  add("eth2", "ethernet", true, {}, {"fe80::1/64", "fd00::2/64"});
  auto c = mesh_candidates(net, "");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].ifname, "eth0");
  EXPECT_EQ(c[0].addr, "198.18.0.1");
  EXPECT_EQ(c[1].addr, "fd00::2");                       // link-local skipped
  EXPECT_EQ(mesh_candidates(net, "docker").size(), 3u);  // named by NCCL_SOCKET_IFNAME: tested too
}

TEST(ClusterMesh, MatrixShowsErrorsPerInterface) {
  ClusterView v;
  v.nodes.resize(2);
  v.nodes[0].hostname = "a";
  v.nodes[0].node_rank = 0;
  v.nodes[1].hostname = "b";
  v.nodes[1].node_rank = 1;
  v.mesh.ran = true;
  MeshProbe ok{0, 1, "eth0", "198.18.0.2", true, "", "", 0.25};
  MeshProbe bad{1, 0, "eth0", "198.18.0.1", false, "no route", "Network is unreachable"};
  v.mesh.probes = {ok, bad};
  auto lines = render_mesh_matrix(v);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_NE(lines[0].find("mesh to eth0"), std::string::npos);
  EXPECT_NE(lines[2].find("0.25ms"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("NOROUTE"), std::string::npos) << lines[3];
}

}  // namespace
}  // namespace dd::cluster
