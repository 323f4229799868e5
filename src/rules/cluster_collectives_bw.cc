// Bandwidth findings of the cross-node pass: one line per path (inside each node, each pair of
// neighbouring nodes, all_reduce over all ranks), the pair of nodes far below the best pair (naming the node
// common to every slow pair), and pairs far below what their NICs advertise (NCCL only).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "rules/cluster_collectives_util.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

struct PathBw {
  std::string path;
  int rank_a = -1, rank_b = -1, node_a = -1, node_b = -1;
  uint64_t bytes = 0;
  double busbw = -1;  // GB/s, the slowest participating node's view; -1 incomplete
  double link_gbps = 0;
  bool gpu = false;  // NCCL ranks (one GPU each)
};

std::string nic_name(
    const std::string& nic) {  // "[0]mlx5_0:1/IB" -> "mlx5_0", "[0]eth0:1.2.3.4<0>" -> "eth0"
  std::string s = nic;
  if (!s.empty() && s[0] == '[') s = s.substr(s.find(']') + 1);
  return s.substr(0, s.find(':'));
}

std::vector<PathBw> paths_of(const ClusterView& view, const XnPhase& verify, const XnPhase& ph,
                             bool xn_engine_is_nccl) {
  std::vector<PathBw> out;
  const size_t nops = ph.nodes.empty() ? 0 : ph.nodes.front().ops.size();
  for (size_t i = 0; i < nops; ++i) {
    PathBw p;
    p.gpu = xn_engine_is_nccl;
    for (const auto& n : ph.nodes) {
      if (i >= n.ops.size() || !n.ops[i].participates) continue;
      const XnOp& op = n.ops[i];
      p.path = op.path, p.rank_a = op.pair_a, p.rank_b = op.pair_b, p.bytes = op.bytes;
      if (!op.complete) p.busbw = -2;
      if (p.busbw > -2) p.busbw = p.busbw < 0 ? op.busbw_gbps : std::min(p.busbw, op.busbw_gbps);
    }
    p.node_a = node_of_rank(verify, p.rank_a);
    p.node_b = node_of_rank(verify, p.rank_b);
    if (p.path == "inter" && p.node_a >= 0 && p.node_b >= 0) {
      double a = advertised_gbps(view.nodes[p.node_a].facts,
                                 nic_name(node_nic(view.nodes[p.node_a], verify.nodes[p.node_a])));
      double b = advertised_gbps(view.nodes[p.node_b].facts,
                                 nic_name(node_nic(view.nodes[p.node_b], verify.nodes[p.node_b])));
      p.link_gbps = (a > 0 && b > 0) ? std::min(a, b) : std::max(a, b);
    }
    out.push_back(p);
  }
  return out;
}

// "host(1) rank 2 (GPU 0, mlx5_0)"; Gloo ranks have no GPU.
std::string end_label(const ClusterView& view, const XnPhase& verify, int node, int rank, bool gpu) {
  if (node < 0) return fmt::format("rank {}", rank);
  const auto& res = verify.nodes[node];
  const int local = rank - res.first_rank;
  const int device = local < static_cast<int>(res.devices.size()) ? res.devices[local] : local;
  return fmt::format("{} rank {} ({}{})", node_label(view.nodes[node]), rank,
                     gpu ? fmt::format("GPU {}, ", device) : "", node_nic(view.nodes[node], res));
}

std::string path_line(const ClusterView& view, const XnPhase& verify, const PathBw& p) {
  std::string where = p.path == "all" ? "all_reduce over every rank"
                                      : end_label(view, verify, p.node_a, p.rank_a, p.gpu) + " <-> " +
                                            end_label(view, verify, p.node_b, p.rank_b, p.gpu);
  std::string bw = p.busbw < 0 ? "did not finish" : fmt::format("{:.3f} GB/s busbw", p.busbw);
  std::string link = p.link_gbps > 0 && p.busbw >= 0
                         ? fmt::format(", {:.3g}% of the {:.0f} Gb/s the NICs advertise",
                                       p.busbw * 8 / p.link_gbps * 100, p.link_gbps)
                         : "";
  return fmt::format("{}: {}: {} at {} KiB{}", p.path, where, bw, p.bytes >> 10, link);
}

// The best inter-node pair of `ps` (nullptr when none finished).
const PathBw* best_inter(const std::vector<PathBw>& ps) {
  const PathBw* best = nullptr;
  for (const auto& p : ps)
    if (p.path == "inter" && p.busbw > 0 && (!best || p.busbw > best->busbw)) best = &p;
  return best;
}

// Pair p's measurement in `same_size` (all pairs at one size); nullptr when it did not finish there.
const PathBw* at_equal_size(const PathBw& p, const std::vector<PathBw>& same_size) {
  for (const auto& q : same_size)
    if (q.path == "inter" && q.rank_a == p.rank_a && q.rank_b == p.rank_b && q.busbw >= 0) return &q;
  return nullptr;
}

// Inter-node pairs below a third of the best pair, in the bandwidth phase and at equal sizes; the node in
// every slow pair (3+ nodes) is named.
std::vector<Finding> slow_pairs(const ClusterView& view, const XnPhase& verify, const std::vector<PathBw>& ps,
                                const std::vector<PathBw>& same_size) {
  const PathBw* best_p = best_inter(ps);
  if (!best_p) return {};
  const double best = best_p->busbw;
  const PathBw* same_best = best_inter(same_size);
  std::vector<const PathBw*> slow, same_slow;  // same_slow: their equal-size measurements, where taken
  for (const auto& p : ps) {
    if (p.path != "inter" || p.busbw < 0 || p.busbw >= best / 3) continue;
    const PathBw* q = same_best ? at_equal_size(p, same_size) : nullptr;
    if (q && q->busbw >= same_best->busbw / 3) continue;  // not slow at one size: the sample, not the link
    slow.push_back(&p);
    if (q) same_slow.push_back(q);
  }
  if (slow.empty()) return {};
  std::vector<int> in_all;
  for (int n = 0; n < static_cast<int>(view.nodes.size()); ++n)
    if (std::all_of(slow.begin(), slow.end(),
                    [n](const PathBw* p) { return p->node_a == n || p->node_b == n; }))
      in_all.push_back(n);
  Finding f;
  f.id = "cluster.collectives.slow_pair";
  f.severity = Severity::warn;
  const PathBw& s = *slow.front();
  if (slow.size() >= 2 && in_all.size() == 1) {
    f.node = node_label(view.nodes[in_all[0]]);
    f.title = fmt::format(
        "{} is slow: every node pair with it runs below a third of the best pair ({:.3f} vs {:.3f} "
        "GB/s)",
        f.node, s.busbw, best);
  } else {
    f.title = fmt::format(
        "{} node pair(s) below a third of the best pair: {} <-> {} at {:.3f} GB/s ({:.0f}% of {:.3f})",
        slow.size(), node_label(view.nodes[s.node_a]), node_label(view.nodes[s.node_b]), s.busbw,
        s.busbw / best * 100, best);
  }
  for (const auto* p : slow) f.evidence.push_back(path_line(view, verify, *p));
  f.evidence.push_back("best: " + path_line(view, verify, *best_p));
  for (const auto* q : same_slow)
    f.evidence.push_back(fmt::format("also at one size for every pair (verify phase): {}; best {:.3f} GB/s",
                                     path_line(view, verify, *q), same_best->busbw));
  f.fix =
      "Look at that node's NIC and cable: link speed and errors (ethtool, ibstat, ip -s link), a traffic "
      "shaper or QoS setting, a switch port, and other traffic on it; then rerun the check.";
  return {f};
}

}  // namespace

std::vector<Finding> bandwidth_findings(const ClusterView& view, const CrossNodeView& xn, const XnPhase& ph,
                                        const XnPhase* equal_sizes) {
  const XnPhase& verify = xn.phases.front();
  const std::vector<PathBw> ps = paths_of(view, verify, ph, xn.engine == EngineKind::nccl);
  Finding info{"cluster.collectives.bandwidth", Severity::info, "bandwidth per path:"};
  for (const auto& p : ps) info.evidence.push_back(path_line(view, verify, p));
  for (const char* cls : {"intra", "inter", "all"}) {
    double lo = -1, hi = -1;
    for (const auto& p : ps)
      if (p.path == cls && p.busbw >= 0)
        lo = lo < 0 ? p.busbw : std::min(lo, p.busbw), hi = std::max(hi, p.busbw);
    if (hi >= 0)
      info.title += fmt::format(" {} {:.3f}{} GB/s;", std::string(cls) == "all" ? "all_reduce" : cls, lo,
                                hi > lo ? fmt::format("-{:.3f}", hi) : "");
  }
  std::vector<Finding> out{info};
  const std::vector<PathBw> same_size =
      equal_sizes ? paths_of(view, verify, *equal_sizes, xn.engine == EngineKind::nccl)
                  : std::vector<PathBw>{};
  for (auto& f : slow_pairs(view, verify, ps, same_size)) out.push_back(std::move(f));
  for (const auto& p : ps) {
    if (xn.engine != EngineKind::nccl || p.path != "inter" || p.link_gbps <= 0 || p.busbw < 0) continue;
    const double pct = p.busbw * 8 / p.link_gbps * 100;
    if (pct >= 40) continue;
    out.push_back(Finding{
        "cluster.collectives.below_link",
        Severity::warn,
        fmt::format("{} <-> {}: {:.0f}% of the {:.0f} Gb/s their NICs advertise",
                    node_label(view.nodes[p.node_a]), node_label(view.nodes[p.node_b]), pct, p.link_gbps),
        {path_line(view, verify, p)},
        "NCCL reaches 80-95% of the line rate between healthy nodes: check the transport "
        "it chose (sockets instead of IB?), GPU-NIC affinity (NCCL_IB_HCA), PCIe link "
        "width, and the port's speed and errors."});
  }
  return out;
}

int node_of_rank(const XnPhase& ph, int r) {
  for (size_t i = 0; i < ph.nodes.size(); ++i)
    if (r >= ph.nodes[i].first_rank && r < ph.nodes[i].first_rank + ph.nodes[i].nproc) return int(i);
  return -1;
}

std::string node_nic(const ClusterNode& n, const XnNodeResult& res) {
  if (!res.nccl_nics.empty()) return res.nccl_nics.front();
  auto ifs = nccl_socket_ifs(n.facts);
  return ifs.empty() ? "?" : ifs.front().name;
}

bool has_active_ib(const probe::NodeFacts& f) {
  for (const auto& d : f.ib.devices)
    for (const auto& p : d.ports)
      if (p.state.find("ACTIVE") != std::string::npos) return true;
  return false;
}

double advertised_gbps(const probe::NodeFacts& f, const std::string& ifname) {
  for (const auto& d : f.ib.devices) {
    bool match = d.name == ifname || std::find(d.netdevs.begin(), d.netdevs.end(), ifname) != d.netdevs.end();
    if (!match) continue;
    for (const auto& p : d.ports)
      if (p.state.find("ACTIVE") != std::string::npos) return std::atof(p.rate.c_str());
  }
  for (const auto& i : f.net.interfaces)
    if (i.name == ifname && i.speed_mbps > 0) return i.speed_mbps / 1000.0;
  return 0;
}

}  // namespace dd::rules
