// `bench --tune`: each candidate NCCL setting on its own at one size, then the best two together; the winner
// is confirmed with the data check on before it is recommended.
#include <algorithm>
#include <cstdio>

#include "comm/bench.h"
#include "comm/comm_finding.h"
#include "comm/units.h"

namespace dd::comm {

using report::Severity;

namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

struct Candidate {
  std::string name;
  Env env;
  bool reg = false, graph = false;
};

std::vector<Candidate> candidates(const std::string& engine) {
  std::vector<Candidate> c = {
      {"NCCL_MIN_NCHANNELS=32", {{"NCCL_MIN_NCHANNELS", "32"}}},
      {"NCCL_MIN_NCHANNELS=16", {{"NCCL_MIN_NCHANNELS", "16"}}},
      {"NCCL_ALGO=Tree", {{"NCCL_ALGO", "Tree"}}},
      {"NCCL_ALGO=Ring", {{"NCCL_ALGO", "Ring"}}},
      {"NCCL_PROTO=Simple", {{"NCCL_PROTO", "Simple"}}},
      {"NCCL_BUFFSIZE=8388608", {{"NCCL_BUFFSIZE", "8388608"}}},
      {"NCCL_NTHREADS=512", {{"NCCL_NTHREADS", "512"}}},
  };
  if (engine == "nccl") {
    c.push_back({"buffers registered (ncclCommRegister)", {}, true, false});
    c.push_back({"CUDA graph of the timed runs", {}, false, true});
  }
  return c;
}

// Measures settings one run at a time and prints each row as it comes.
class Tuner {
 public:
  Tuner(const BenchOptions& b, Coll c, uint64_t bytes, std::ostream& progress, const NodeContext& node,
        TuneResult& t)
      : b_(b), c_(c), bytes_(bytes), progress_(progress), node_(node), t_(t) {}

  // busbw of one setting; 0 when it fails (the default failing is a finding, a candidate failing only loses).
  double measure(const Candidate& k, bool check) {
    RunOptions ro = b_.run;
    for (const auto& kv : k.env) ro.env.push_back(kv);
    ro.register_buffers = k.reg;
    ro.cuda_graph = k.graph;
    ro.capture_nccl_log = false;
    ro.ops = {single_op(b_, c_, bytes_, check)};
    RunOutcome r = run_collectives(ro, node_);
    if (r.ok) return r.ops[0].busbw;
    if (k.env.empty() && !k.reg && !k.graph)
      for (const auto& f : r.findings) t_.findings.push_back(f);
    else
      progress_ << "  (" << k.name << " failed: " << (r.findings.empty() ? "?" : r.findings[0].title)
                << ")\n";
    return 0;
  }

  void row(const std::string& name, double v) {
    t_.rows.push_back({name, v});
    char line[160];
    snprintf(line, sizeof line, "  %-48s %9.1f GB/s %+7.1f%%\n", name.c_str(), v,
             t_.base > 0 ? (v / t_.base - 1) * 100 : 0.0);
    progress_ << line << std::flush;
  }

 private:
  const BenchOptions& b_;
  Coll c_;
  uint64_t bytes_;
  std::ostream& progress_;
  const NodeContext& node_;
  TuneResult& t_;
};

// The best two together, when they touch different settings; updates best when it wins.
void try_best_pair(Tuner& tuner, const std::vector<Candidate>& cands,
                   const std::vector<std::pair<double, size_t>>& gains, TuneResult& t, Candidate& best) {
  if (gains.size() < 2 || gains[1].first <= t.base) return;
  const Candidate& a = cands[gains[0].second];
  const Candidate& d = cands[gains[1].second];
  if (!a.env.empty() && !d.env.empty() && a.env[0].first == d.env[0].first) return;
  Candidate both{a.name + " + " + d.name, a.env, a.reg || d.reg, a.graph || d.graph};
  for (const auto& kv : d.env) both.env.push_back(kv);
  double v = tuner.measure(both, false);
  tuner.row(both.name, v);
  if (v > t.best_busbw) {
    t.best_busbw = v;
    best = both;
  }
}

std::string how_to_apply(const Candidate& best) {
  std::string how;
  for (const auto& kv : best.env) how += "export " + kv.first + "=" + kv.second + "\n";
  if (best.reg)
    how +=
        "register communication buffers with NCCL (ncclCommRegister; in PyTorch a registering allocator)\n";
  if (best.graph) how += "capture the communication in CUDA graphs (torch.cuda.graphs)\n";
  return how;
}

}  // namespace

TuneResult run_tune(const BenchOptions& b, uint64_t bytes, std::ostream& progress, const NodeContext& node) {
  TuneResult t;
  Coll c = b.colls.empty() ? Coll::all_reduce : b.colls[0];
  Tuner tuner(b, c, bytes, progress, node, t);
  progress << "# tune: " << coll_info(c).name << " " << (bytes >> 20) << " MiB, busbw per setting\n";
  t.base = tuner.measure({"(default)", {}}, true);
  tuner.row("(default)", t.base);
  const std::vector<Candidate> cands = candidates(b.run.engine);
  std::vector<std::pair<double, size_t>> gains;
  for (size_t i = 0; i < cands.size(); ++i) {
    double v = tuner.measure(cands[i], false);
    tuner.row(cands[i].name, v);
    gains.push_back({v, i});
  }
  std::sort(gains.rbegin(), gains.rend());
  t.best_busbw = t.base;
  Candidate best;
  if (!gains.empty() && gains[0].first > t.best_busbw) {
    t.best_busbw = gains[0].first;
    best = cands[gains[0].second];
  }
  try_best_pair(tuner, cands, gains, t, best);
  if (best.name.empty() || t.best_busbw < t.base * 1.01) {
    t.findings.push_back(
        comm_finding("comm.tune.default_best", Severity::info,
                     "No tried NCCL setting beat the default by 1% (" + gbps_with_unit(t.base) + ")"));
    return t;
  }
  t.best = best.name;
  // Confirm the winner with the data check on, so a recommendation never breaks correctness.
  double confirm = tuner.measure(best, true);
  tuner.row(best.name + " (checked)", confirm);
  t.findings.push_back(comm_finding("comm.tune.better", Severity::info,
                                    best.name + " raises " + coll_info(c).name + " busbw from " +
                                        gbps_with_unit(t.base) + " to " + gbps_with_unit(t.best_busbw),
                                    {"measured at " + std::to_string(bytes >> 20) + " MiB on this node",
                                     "confirmed with the data check: " + gbps_with_unit(confirm)},
                                    "Add to the job's environment:\n" + how_to_apply(best)));
  return t;
}

}  // namespace dd::comm
