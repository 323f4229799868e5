// The extra passes of `distdoctor bench`: per-pair send/recv matrix and NET transport probe.
#include <algorithm>
#include <cstdio>
#include <set>

#include "comm/bench.h"
#include "comm/engine/units.h"
#include "comm/run/comm_finding.h"
#include "comm/run/run_setup.h"
#include "report/comm_ids.h"

namespace dd::comm {

using report::Finding;
using report::Severity;

PairMatrix run_pair_matrix(const BenchOptions& b, uint64_t bytes, const NodeContext& node) {
  PairMatrix m;
  RunOptions ro = b.run;
  int world = local_rank_count(ro, node.facts);
  ro.nproc = world;
  m.world = world;
  m.busbw.assign(world, std::vector<double>(world, 0));
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < world; ++i)
    for (int j = i + 1; j < world; ++j) {
      OpRequest r = single_op(b, Coll::sendrecv, bytes, b.check);
      r.pair_a = i;
      r.pair_b = j;
      ro.ops.push_back(r);
      pairs.push_back({i, j});
    }
  RunOutcome run = run_collectives(ro, node);
  m.findings = run.findings;
  std::vector<double> all;
  for (size_t k = 0; k < run.ops.size(); ++k) {
    auto [i, j] = pairs[k];
    m.busbw[i][j] = m.busbw[j][i] = run.ops[k].busbw;
    if (run.ops[k].complete) all.push_back(run.ops[k].busbw);
  }
  if (all.size() >= 3) {
    std::vector<double> s = all;
    std::sort(s.begin(), s.end());
    double median = s[s.size() / 2];
    for (size_t k = 0; k < run.ops.size(); ++k) {
      auto [i, j] = pairs[k];
      if (run.ops[k].complete && run.ops[k].busbw < 0.5 * median)
        m.findings.push_back(
            comm_finding(report::comm_id::kBwSlowPair, Severity::warn,
                         "ranks " + std::to_string(i) + " and " + std::to_string(j) + " exchange at " +
                             gbps_with_unit(run.ops[k].busbw) + ", under half the median pair (" +
                             gbps_with_unit(median) + ")",
                         {},
                         "Check the link between these two GPUs (nvidia-smi nvlink -s, topo -m) and their "
                         "PCIe width/generation; a degraded link slows every collective."));
    }
  }
  return m;
}

void print_pair_matrix(const PairMatrix& m, std::ostream& out) {
  out << "#\n# send/recv busbw per pair (GB/s)\n#      ";
  for (int j = 0; j < m.world; ++j) out << "  rank" << j << " ";
  out << "\n";
  char b[32];
  for (int i = 0; i < m.world; ++i) {
    snprintf(b, sizeof b, "  rank%-2d", i);
    out << b;
    for (int j = 0; j < m.world; ++j) {
      if (i == j)
        snprintf(b, sizeof b, " %7s ", "-");
      else
        snprintf(b, sizeof b, " %7.1f ", m.busbw[i][j]);
      out << b;
    }
    out << "\n";
  }
}

TransportProbe run_transport_probe(const BenchOptions& b, const NcclLogSummary& normal, uint64_t bytes,
                                   const NodeContext& node) {
  TransportProbe p;
  auto describe = [](const NcclLogSummary& s) {
    std::string t;
    for (const auto& [name, n] : s.transports) t += (t.empty() ? "" : ", ") + name + " x" + std::to_string(n);
    return t.empty() ? std::string("none seen in NCCL's log") : t;
  };
  if (!normal.transports.empty())
    p.findings.push_back(comm_finding(report::comm_id::kTransportDefault, Severity::info,
                                      "NCCL chose " + describe(normal),
                                      {"from NCCL's own INFO log of the run"}));
  RunOptions ro = b.run;
  ro.env.push_back({"NCCL_P2P_DISABLE", "1"});
  ro.env.push_back({"NCCL_SHM_DISABLE", "1"});
  ro.capture_nccl_log = true;
  ro.ops = {single_op(b, Coll::all_reduce, bytes, true)};
  p.net_run = run_collectives(ro, node);
  const auto& s = p.net_run.nccl_log;
  std::vector<std::string> ev = {"NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1"};
  if (!s.network.empty()) ev.push_back("network plugin: " + s.network);
  for (const auto& n : s.nics) ev.push_back("NIC " + n);
  if (!s.bootstrap.empty()) ev.push_back("bootstrap interface " + s.bootstrap);
  if (!p.net_run.ok) {
    for (const auto& f : p.net_run.findings) ev.push_back(f.title);
    p.findings.push_back(
        comm_finding(report::comm_id::kTransportNetFailed, Severity::warn,
                     "With P2P and SHM off, NCCL could not run over its network path", ev,
                     "The network transport (NET/IB or NET/Socket) is what crosses nodes: fix it before a "
                     "multi-node job (NCCL_SOCKET_IFNAME, NCCL_IB_HCA, firewall)."));
    return p;
  }
  const OpOutcome& o = p.net_run.ops[0];
  ev.push_back("all_reduce " + std::to_string(bytes >> 20) + " MiB busbw " + gbps_with_unit(o.busbw));
  p.findings.push_back(comm_finding(report::comm_id::kTransportNet, Severity::info,
                                    "Network path: NCCL chose " + describe(s), ev));
  return p;
}

}  // namespace dd::comm
