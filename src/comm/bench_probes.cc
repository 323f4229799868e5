// The extra passes of `distdoctor bench`: per-pair send/recv matrix, NET transport probe, and --tune.
#include <algorithm>
#include <cstdio>
#include <set>

#include "comm/bench.h"
#include "comm/comm_finding.h"

namespace dd::comm {

using report::Finding;
using report::Severity;

namespace {
std::string gb(double v) {
  char b[32];
  snprintf(b, sizeof b, "%.1f GB/s", v);
  return b;
}
OpRequest one_op(const BenchOptions& b, Coll c, uint64_t bytes, bool check) {
  OpRequest r;
  r.coll = c;
  r.dtype = b.dtype;
  r.bytes = bytes;
  r.warmup = b.warmup;
  r.iters = b.iters;
  r.check = check;
  r.timeout = b.op_timeout.count() > 0 ? b.op_timeout : auto_timeout(bytes * 2, b.warmup + b.iters + 1);
  return r;
}
}  // namespace

PairMatrix run_pair_matrix(const BenchOptions& b, uint64_t bytes) {
  PairMatrix m;
  RunOptions ro = b.run;
  int world = ro.nproc > 0 ? ro.nproc : (ro.engine == "nccl" ? visible_gpu_count() : 2);
  ro.nproc = world;
  m.world = world;
  m.busbw.assign(world, std::vector<double>(world, 0));
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < world; ++i)
    for (int j = i + 1; j < world; ++j) {
      OpRequest r = one_op(b, Coll::sendrecv, bytes, b.check);
      r.pair_a = i;
      r.pair_b = j;
      ro.ops.push_back(r);
      pairs.push_back({i, j});
    }
  RunOutcome run = run_collectives(ro);
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
            comm_finding("comm.bw.slow_pair", Severity::warn,
                         "ranks " + std::to_string(i) + " and " + std::to_string(j) + " exchange at " +
                             gb(run.ops[k].busbw) + ", under half the median pair (" + gb(median) + ")",
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

TransportProbe run_transport_probe(const BenchOptions& b, const NcclLogSummary& normal, uint64_t bytes) {
  TransportProbe p;
  auto describe = [](const NcclLogSummary& s) {
    std::string t;
    for (const auto& [name, n] : s.transports) t += (t.empty() ? "" : ", ") + name + " x" + std::to_string(n);
    return t.empty() ? std::string("none seen in NCCL's log") : t;
  };
  if (!normal.transports.empty())
    p.findings.push_back(comm_finding("comm.transport.default", Severity::info,
                                      "NCCL chose " + describe(normal),
                                      {"from NCCL's own INFO log of the run"}));
  RunOptions ro = b.run;
  ro.env.push_back({"NCCL_P2P_DISABLE", "1"});
  ro.env.push_back({"NCCL_SHM_DISABLE", "1"});
  ro.capture_nccl_log = true;
  ro.ops = {one_op(b, Coll::all_reduce, bytes, true)};
  p.net_run = run_collectives(ro);
  const auto& s = p.net_run.nccl_log;
  std::vector<std::string> ev = {"NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1"};
  if (!s.network.empty()) ev.push_back("network plugin: " + s.network);
  for (const auto& n : s.nics) ev.push_back("NIC " + n);
  if (!s.bootstrap.empty()) ev.push_back("bootstrap interface " + s.bootstrap);
  if (!p.net_run.ok) {
    for (const auto& f : p.net_run.findings) ev.push_back(f.title);
    p.findings.push_back(
        comm_finding("comm.transport.net_failed", Severity::warn,
                     "With P2P and SHM off, NCCL could not run over its network path", ev,
                     "The network transport (NET/IB or NET/Socket) is what crosses nodes: fix it before a "
                     "multi-node job (NCCL_SOCKET_IFNAME, NCCL_IB_HCA, firewall)."));
    return p;
  }
  const OpOutcome& o = p.net_run.ops[0];
  ev.push_back("all_reduce " + std::to_string(bytes >> 20) + " MiB busbw " + gb(o.busbw));
  p.findings.push_back(
      comm_finding("comm.transport.net", Severity::info, "Network path: NCCL chose " + describe(s), ev));
  return p;
}

TuneResult run_tune(const BenchOptions& b, uint64_t bytes, std::ostream& progress) {
  TuneResult t;
  Coll c = b.colls.empty() ? Coll::all_reduce : b.colls[0];
  using Env = std::vector<std::pair<std::string, std::string>>;
  struct Cand {
    std::string name;
    Env env;
    bool reg = false, graph = false;
  };
  auto measure = [&](const Cand& k, bool check) -> double {
    RunOptions ro = b.run;
    for (const auto& kv : k.env) ro.env.push_back(kv);
    ro.register_buffers = k.reg;
    ro.cuda_graph = k.graph;
    ro.capture_nccl_log = false;
    ro.ops = {one_op(b, c, bytes, check)};
    RunOutcome r = run_collectives(ro);
    if (!r.ok) {
      // The default failing is a finding; a candidate failing only loses.
      if (k.env.empty() && !k.reg && !k.graph)
        for (const auto& f : r.findings) t.findings.push_back(f);
      else
        progress << "  (" << k.name << " failed: " << (r.findings.empty() ? "?" : r.findings[0].title)
                 << ")\n";
      return 0;
    }
    return r.ops[0].busbw;
  };
  std::vector<Cand> cands = {
      {"NCCL_MIN_NCHANNELS=32", {{"NCCL_MIN_NCHANNELS", "32"}}},
      {"NCCL_MIN_NCHANNELS=16", {{"NCCL_MIN_NCHANNELS", "16"}}},
      {"NCCL_ALGO=Tree", {{"NCCL_ALGO", "Tree"}}},
      {"NCCL_ALGO=Ring", {{"NCCL_ALGO", "Ring"}}},
      {"NCCL_PROTO=Simple", {{"NCCL_PROTO", "Simple"}}},
      {"NCCL_BUFFSIZE=8388608", {{"NCCL_BUFFSIZE", "8388608"}}},
      {"NCCL_NTHREADS=512", {{"NCCL_NTHREADS", "512"}}},
  };
  if (b.run.engine == "nccl") {
    cands.push_back({"buffers registered (ncclCommRegister)", {}, true, false});
    cands.push_back({"CUDA graph of the timed runs", {}, false, true});
  }
  auto row = [&](const std::string& name, double v) {
    t.rows.push_back({name, v});
    char line[160];
    snprintf(line, sizeof line, "  %-48s %9.1f GB/s %+7.1f%%\n", name.c_str(), v,
             t.base > 0 ? (v / t.base - 1) * 100 : 0.0);
    progress << line << std::flush;
  };
  progress << "# tune: " << coll_info(c).name << " " << (bytes >> 20) << " MiB, busbw per setting\n";
  t.base = measure({"(default)", {}}, true);
  row("(default)", t.base);
  std::vector<std::pair<double, size_t>> gains;
  for (size_t i = 0; i < cands.size(); ++i) {
    double v = measure(cands[i], false);
    row(cands[i].name, v);
    gains.push_back({v, i});
  }
  std::sort(gains.rbegin(), gains.rend());
  t.best_busbw = t.base;
  Cand best;
  if (!gains.empty() && gains[0].first > t.best_busbw) {
    t.best_busbw = gains[0].first;
    best = cands[gains[0].second];
  }
  // The best two together, when they touch different settings.
  if (gains.size() >= 2 && gains[1].first > t.base) {
    const Cand& a = cands[gains[0].second];
    const Cand& d = cands[gains[1].second];
    bool clash = !a.env.empty() && !d.env.empty() && a.env[0].first == d.env[0].first;
    if (!clash) {
      Cand both{a.name + " + " + d.name, a.env, a.reg || d.reg, a.graph || d.graph};
      for (const auto& kv : d.env) both.env.push_back(kv);
      double v = measure(both, false);
      row(both.name, v);
      if (v > t.best_busbw) {
        t.best_busbw = v;
        best = both;
      }
    }
  }
  if (!best.name.empty() && t.best_busbw >= t.base * 1.01) {
    t.best = best.name;
    // Confirm the winner with the data check on, so a recommendation never breaks correctness.
    double confirm = measure(best, true);
    row(best.name + " (checked)", confirm);
    std::string how;
    for (const auto& kv : best.env) how += "export " + kv.first + "=" + kv.second + "\n";
    if (best.reg)
      how +=
          "register communication buffers with NCCL (ncclCommRegister; in PyTorch a registering allocator)\n";
    if (best.graph) how += "capture the communication in CUDA graphs (torch.cuda.graphs)\n";
    t.findings.push_back(comm_finding(
        "comm.tune.better", Severity::info,
        best.name + " raises " + coll_info(c).name + " busbw from " + gb(t.base) + " to " + gb(t.best_busbw),
        {"measured at " + std::to_string(bytes >> 20) + " MiB on this node",
         "confirmed with the data check: " + gb(confirm)},
        "Add to the job's environment:\n" + how));
  } else {
    t.findings.push_back(comm_finding("comm.tune.default_best", Severity::info,
                                      "No tried NCCL setting beat the default by 1% (" + gb(t.base) + ")"));
  }
  return t;
}

}  // namespace dd::comm
