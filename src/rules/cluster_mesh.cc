// Cluster rule over the TCP mesh: pairs that cannot connect (and why), interfaces that work for some peers
// only, asymmetric results, latency outliers, and the NCCL_SOCKET_IFNAME value that reaches every peer.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "nccl/if_list.h"
#include "nccl/if_select.h"
#include "rules/cluster_rule.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

using Key = std::tuple<int, int, std::string>;  // from, to, to_if

std::string primary_if(const ClusterNode& n) {
  auto ifs = nccl_socket_ifs(n.facts);
  return ifs.empty() ? "" : ifs.front().name;
}

std::string why(const MeshProbe& p) {
  return p.detail.empty() ? p.error : fmt::format("{} ({})", p.error, p.detail);
}

// True when every ordered pair of distinct nodes connected on the given interface of the target,
// where ifname_of(node) says which interface that is. A node that sent no probes (its results are missing)
// or was probed by nobody (it left: its probes were dropped) says nothing either way: its pairs are skipped.
template <typename F>
bool all_pairs_ok(const ClusterView& v, const std::map<Key, const MeshProbe*>& idx, F ifname_of) {
  std::set<int> senders, targets;
  for (const auto& [key, probe] : idx) senders.insert(std::get<0>(key)), targets.insert(std::get<1>(key));
  for (size_t i = 0; i < v.nodes.size(); ++i)
    for (size_t j = 0; j < v.nodes.size(); ++j) {
      if (i == j || !senders.count(static_cast<int>(i)) || !targets.count(static_cast<int>(j))) continue;
      auto it = idx.find(Key{static_cast<int>(i), static_cast<int>(j), ifname_of(j)});
      if (it == idx.end() || !it->second->ok) return false;
    }
  return true;
}

void recommend(const ClusterView& v, const std::map<Key, const MeshProbe*>& idx, std::vector<Finding>* out) {
  std::vector<std::string> primary;
  std::set<std::string> settings;
  for (const auto& n : v.nodes)
    primary.push_back(primary_if(n)), settings.insert(socket_ifname_setting(n.facts));
  bool current_ok = all_pairs_ok(v, idx, [&](size_t j) { return primary[j]; });
  // Candidate names: interfaces every node has, in the first node's NCCL preference order.
  std::vector<std::string> candidates;
  for (const auto& i :
       nccl::nccl_find_interfaces(v.nodes[0].facts.net, "^lo,docker,virbr", 0, nccl::kNcclMaxIfs))
    candidates.push_back(i.name);
  for (const auto& i : nccl::nccl_find_interfaces(v.nodes[0].facts.net, "docker", 0, nccl::kNcclMaxIfs))
    candidates.push_back(i.name);
  std::string good;
  for (const auto& c : candidates)
    if (all_pairs_ok(v, idx, [&](size_t) { return c; })) {
      good = c;
      break;
    }
  std::string current =
      settings.size() == 1
          ? (settings.begin()->empty() ? "NCCL's default choice" : "NCCL_SOCKET_IFNAME=" + *settings.begin())
          : "the per-node NCCL_SOCKET_IFNAME values";
  std::vector<std::string> ev;
  for (size_t i = 0; i < v.nodes.size(); ++i)
    ev.push_back(
        fmt::format("{} uses {}", node_label(v.nodes[i]), primary[i].empty() ? "(none)" : primary[i]));
  if (current_ok) {
    out->push_back(
        Finding{"cluster.mesh.ifname_ok", Severity::ok, fmt::format("{} reaches every peer", current), ev});
    return;
  }
  Finding f{"cluster.mesh.ifname", Severity::fail, fmt::format("{} does not reach every peer", current), ev};
  if (!good.empty()) {
    f.title += fmt::format("; {} does", good);
    f.fix = fmt::format(
        "export NCCL_SOCKET_IFNAME={0} GLOO_SOCKET_IFNAME={0} on every node (with mpirun: "
        "-x NCCL_SOCKET_IFNAME -x GLOO_SOCKET_IFNAME)",
        good);
  } else {
    f.fix =
        "No single interface name reaches every peer: fix the failing links above (cabling, VLAN, firewall) "
        "or give the nodes a common network.";
  }
  out->push_back(std::move(f));
}

// The mesh probes by (from, to, interface) and by target, and every successful connect time.
struct MeshIndex {
  std::map<Key, const MeshProbe*> by_pair;
  std::map<std::pair<int, std::string>, std::vector<const MeshProbe*>> by_target;
  std::vector<double> latencies;
};

MeshIndex index_probes(const ClusterView& v) {
  MeshIndex m;
  for (const auto& p : v.mesh.probes) {
    if (p.from < 0 || p.to < 0 || p.from >= static_cast<int>(v.nodes.size()) ||
        p.to >= static_cast<int>(v.nodes.size()))
      continue;
    m.by_pair[Key{p.from, p.to, p.to_if}] = &p;
    m.by_target[{p.to, p.to_if}].push_back(&p);
    if (p.ok && p.connect_ms >= 0) m.latencies.push_back(p.connect_ms);
  }
  return m;
}

// One target interface that some peers could not reach: fail on NCCL's path, info when the failing sources
// have no interface of that name, else warn.
Finding target_failure(const ClusterView& v, const std::pair<int, std::string>& target,
                       const std::vector<const MeshProbe*>& probes) {
  const auto& tn = v.nodes[target.first];
  std::vector<std::string> ok_from, bad, bad_from;
  for (const auto* p : probes) {
    if (p->ok)
      ok_from.push_back(node_label(v.nodes[p->from]));
    else
      bad.push_back(fmt::format("from {}: {}", node_label(v.nodes[p->from]), why(*p)));
    if (!p->ok) bad_from.push_back(node_label(v.nodes[p->from]));
  }
  // NCCL's path: the interface it picks there, or one its NCCL_SOCKET_IFNAME names (even if it is down).
  const std::string setting = socket_ifname_setting(tn.facts);
  bool primary = primary_if(tn) == target.second ||
                 (setting.size() > 1 && nccl::nccl_if_list_selects(setting, target.second));
  // Off NCCL's path and failing only from nodes that have no interface of that name: worth knowing only.
  bool sources_lack_it = true;
  for (const auto* p : probes)
    if (!p->ok)
      for (const auto& i : v.nodes[p->from].facts.net.interfaces)
        if (i.name == target.second) sources_lack_it = false;
  std::string what = fmt::format("{} of {} ({})", target.second, node_label(tn), probes[0]->to_addr);
  Finding f{ok_from.empty() ? "cluster.mesh.unreachable" : "cluster.mesh.partial",
            primary           ? Severity::fail
            : sources_lack_it ? Severity::info
                              : Severity::warn,
            ok_from.empty() ? fmt::format("{} cannot be reached from any peer", what)
                            : fmt::format("{} is reached from {} but not from {}", what, join_labels(ok_from),
                                          bad_from.size() <= 4 ? join_labels(bad_from)
                                                               : fmt::format("{} peers", bad_from.size())),
            bad};
  if (primary) f.evidence.push_back(fmt::format("NCCL on {} uses {}", node_label(tn), target.second));
  f.fix =
      "Check cabling/link state (ip -br link), VLAN and firewall rules between these nodes on this "
      "interface (e.g. nc -zv ADDR PORT), or steer NCCL to an interface that works (see below).";
  f.node = tn.hostname;
  return f;
}

// Asymmetry: i reaches j's X but j does not reach i's X.
void check_asymmetry(const ClusterView& v, const std::map<Key, const MeshProbe*>& idx,
                     std::vector<Finding>* out) {
  for (const auto& [k, p] : idx) {
    auto [from, to, ifn] = k;
    if (from > to || !p) continue;
    auto back = idx.find(Key{to, from, ifn});
    if (back == idx.end() || p->ok == back->second->ok) continue;
    const auto* good = p->ok ? p : back->second;
    const auto* bad = p->ok ? back->second : p;
    out->push_back(
        Finding{"cluster.mesh.asymmetric",
                Severity::warn,
                fmt::format("{} works one way only: {} -> {} connects, {} -> {} fails", ifn,
                            node_label(v.nodes[good->from]), node_label(v.nodes[good->to]),
                            node_label(v.nodes[bad->from]), node_label(v.nodes[bad->to])),
                {why(*bad)},
                "One-way failures usually mean a firewall (iptables/nftables, security group) on the "
                "receiving node, or a wrong route back; open the port range NCCL uses."});
  }
}

// Slow connects against the median, and the all-good summary (with bandwidth when measured).
void check_latency(const ClusterView& v, std::vector<double> lat, int failures, std::vector<Finding>* out) {
  if (lat.empty()) return;
  std::sort(lat.begin(), lat.end());
  double med = lat[lat.size() / 2];
  double limit = std::max(med * 5, med + 5.0);
  for (const auto& p : v.mesh.probes)
    if (p.ok && p.connect_ms > limit)
      out->push_back(Finding{
          "cluster.mesh.latency",
          Severity::warn,
          fmt::format("slow connect {} -> {} {}: {:.2f} ms (median {:.2f} ms)", node_label(v.nodes[p.from]),
                      node_label(v.nodes[p.to]), p.to_if, p.connect_ms, med),
          {},
          "Look for congestion, a slow path (routed/VPN) or packet loss on this link."});
  std::vector<double> bw;
  for (const auto& p : v.mesh.probes)
    if (p.mbps_send > 0) bw.push_back(p.mbps_send);
  std::sort(bw.begin(), bw.end());
  std::string bw_s = bw.empty() ? ""
                                : fmt::format("; TCP bandwidth min {:.0f} / median {:.0f} MB/s", bw.front(),
                                              bw[bw.size() / 2]);
  if (failures == 0)
    out->push_back(Finding{"cluster.mesh.ok", Severity::ok,
                           fmt::format("all {} connections of the mesh succeeded; median connect {:.2f} ms{}",
                                       v.mesh.probes.size(), med, bw_s)});
}

std::vector<Finding> check_mesh(const ClusterView& v) {
  std::vector<Finding> out;
  if (!v.mesh.ran || v.nodes.size() < 2) return out;
  const MeshIndex m = index_probes(v);
  int failures = 0;
  for (const auto& [target, probes] : m.by_target) {
    bool any_bad = false;
    for (const auto* p : probes) any_bad = any_bad || !p->ok;
    if (!any_bad) continue;
    failures++;
    out.push_back(target_failure(v, target, probes));
  }
  check_asymmetry(v, m.by_pair, &out);
  check_latency(v, m.latencies, failures, &out);
  recommend(v, m.by_pair, &out);
  return out;
}

}  // namespace

ClusterRule cluster_mesh_rule() {
  return {
      "cluster.mesh",
      check_mesh,
      {{"cluster.mesh.unreachable", "An interface of a node cannot be reached from any peer",
        "Every other node failed to open a TCP connection to this address (refused: nothing listens or a "
        "firewall rejects; timeout: packets dropped, link or VLAN down; unreachable / no route: no path). "
        "If NCCL uses this interface, init hangs or fails with 'Connection refused' / 'timeout'."},
       {"cluster.mesh.partial", "An interface works for some peers and not others",
        "Some nodes reach this address and others do not: typically a switch port, VLAN or firewall issue "
        "specific to the failing pairs."},
       {"cluster.mesh.asymmetric", "A link works one way only",
        "A connects to B on this interface but B cannot connect to A; NCCL needs both directions."},
       {"cluster.mesh.latency", "Connect latency outlier", "One pair connects much slower than the others."},
       {"cluster.mesh.ok", "TCP mesh is complete", "Every node connected to every other node's addresses."},
       {"cluster.mesh.ifname", "NCCL's interface does not reach every peer",
        "The interface NCCL will use (by NCCL_SOCKET_IFNAME or its default choice) fails for some pairs "
        "in the mesh; the finding names an interface that reaches every peer when there is one."},
       {"cluster.mesh.ifname_ok", "NCCL's interface reaches every peer",
        "Every node reached every other node on the interface NCCL will use."}}};
}

}  // namespace dd::rules
