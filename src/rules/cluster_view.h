// ClusterView: what a cluster run gathered from every process of the job (identities, node facts, the TCP
// mesh measurements) as plain data with a JSON form. Cluster rules are pure functions over it.
// It lives here, beside the rules that read it, and not in src/cluster/: cluster/ gathers the data and fills
// this struct, rules/ only read it, so the dependency points one way (cluster -> rules -> probe facts) and
// the rules never include the code that talks to the store and the network.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "probe/facts.h"

namespace dd::rules {

// One address a node listens on for the mesh test.
struct MeshEndpoint {
  std::string ifname;
  std::string addr;  // numeric IPv4/IPv6, no brackets
  int port = 0;
};

// One process of the job, as it announced itself at join time.
struct Member {
  int rank = -1;  // global rank (by hand: the node rank)
  int local_rank = 0;
  int local_world = 1;
  int node_rank = -1;  // as given (--node-rank, SLURM_NODEID, GROUP_RANK); -1 = derive from the machine
  std::string hostname;
  std::string boot_id;  // /proc/sys/kernel/random/boot_id: same value = same running kernel
  std::string netns;    // network namespace inode: same boot id + netns = same network stack
  int64_t pid = 0;
  std::string launcher;                 // "" by hand
  std::vector<std::string> notes;       // where its values came from
  std::vector<MeshEndpoint> endpoints;  // only the process that publishes node facts
  bool has_facts = false;
  std::string nccl_ifname_setting;  // NCCL_SOCKET_IFNAME as this process sees it ("" unset)
  double joined_after_s = 0;        // seconds after the leader started
  int world = 0;  // the job size it was started with (by hand: --nnodes; else the launcher's), 0 = not said
};

// One connection attempt of the mesh: node `from` to endpoint `to_addr` of node `to`.
struct MeshProbe {
  int from = -1, to = -1;  // node indexes in ClusterView::nodes
  std::string to_if, to_addr;
  bool ok = false;
  std::string error;   // "refused", "timeout", "unreachable", "no route", "wrong peer", "reset", other
  std::string detail;  // strerror text or which node answered instead
  double connect_ms = -1;
  double mbps_send = -1, mbps_recv = -1;  // with --mesh-bandwidth, on the node's first NCCL interface
};

struct MeshResult {
  bool ran = false;
  double timeout_ms = 0;
  std::vector<MeshProbe> probes;
};

// A node: the ranks that share one machine, and the facts its first local rank published.
struct ClusterNode {
  int node_rank = -1;
  std::string hostname;
  std::vector<int> ranks;
  Member lead;  // the member that published the facts
  probe::NodeFacts facts;
  bool has_facts = false;
};

struct ClusterView {
  int expected_world = 0;
  std::vector<Member> members;                    // one per rank that joined, sorted by rank
  std::map<int, std::vector<Member>> dup_claims;  // rank -> every member that claimed it (2 or more)
  std::map<int, std::string> unreadable;          // rank -> why its member record could not be read (joined)
  std::vector<ClusterNode> nodes;                 // sorted by node rank
  MeshResult mesh;
  bool by_hand = true;  // ranks are nodes (no launcher)
};

// Groups members into nodes: by the given node rank when every member has one, else by machine
// (hostname + boot id + netns), numbered in order of their lowest rank.
std::vector<ClusterNode> group_nodes(const std::vector<Member>& members);

#define DD_VIEW_JSON(T, ...) NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(T, __VA_ARGS__)
DD_VIEW_JSON(MeshEndpoint, ifname, addr, port)
DD_VIEW_JSON(Member, rank, local_rank, local_world, node_rank, hostname, boot_id, netns, pid, launcher, notes,
             endpoints, has_facts, nccl_ifname_setting, joined_after_s, world)
DD_VIEW_JSON(MeshProbe, from, to, to_if, to_addr, ok, error, detail, connect_ms, mbps_send, mbps_recv)
DD_VIEW_JSON(MeshResult, ran, timeout_ms, probes)
#undef DD_VIEW_JSON

}  // namespace dd::rules
