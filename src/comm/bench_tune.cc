// `bench --tune`: NCCL settings measured on the user's collectives at the user's sizes (--tune-bytes, a
// list), all of them in each run, searched greedily within a time budget that includes the final confirmation
// (tune_search.h); the winner is confirmed with the data check on before it is recommended.
#include <cstdio>

#include "comm/bench.h"
#include "comm/engine/units.h"
#include "comm/run/comm_finding.h"
#include "comm/tune_search.h"
#include "report/comm_ids.h"

namespace dd::comm {

using report::Severity;

namespace {

std::string how_to_apply(const TuneCombo& best) {
  std::string how;
  for (const auto& s : best) {
    for (const auto& kv : s.env) how += "export " + kv.first + "=" + kv.second + "\n";
    if (s.reg)
      how +=
          "register communication buffers with NCCL (ncclCommRegister; in PyTorch a registering allocator)\n";
    if (s.graph) how += "capture the communication in CUDA graphs (torch.cuda.graphs)\n";
    if (s.window)
      how +=
          "allocate communication buffers with ncclMemAlloc and register them as symmetric windows "
          "(ncclCommWindowRegister; in PyTorch NCCL symmetric memory / the NCCL memory pool)\n";
  }
  return how;
}

std::string sizes_text(const std::vector<uint64_t>& sizes) {
  std::string s;
  for (uint64_t b : sizes) s += (s.empty() ? "" : ", ") + bytes_text(b);
  return s;
}

std::string colls_text(const std::vector<Coll>& colls) {
  std::string s;
  for (Coll c : colls) s += (s.empty() ? "" : ", ") + std::string(coll_info(c).name);
  return s;
}

// The runs after the search, inside its budget: the winner with the data check on, the default again.
constexpr double kConfirmRuns = 2.5;  // a checked run costs a little more than a plain one

// One run of every collective at every size with `combo`'s settings; busbw per (collective, size), or
// nullopt when the run failed (the default failing is a finding; a candidate failing only loses).
class Measurer {
 public:
  Measurer(const BenchOptions& b, const std::vector<Coll>& colls, const std::vector<uint64_t>& sizes,
           std::ostream& progress, const NodeContext& node, std::vector<report::Finding>& findings)
      : b_(b), colls_(colls), sizes_(sizes), progress_(progress), node_(node), findings_(findings) {}

  std::optional<std::vector<double>> operator()(const TuneCombo& combo, bool check = false) {
    RunOptions ro = b_.run;
    for (const auto& s : combo) {
      for (const auto& kv : s.env) ro.env.push_back(kv);
      ro.register_buffers |= s.reg;
      ro.cuda_graph |= s.graph;
      ro.symmetric_windows |= s.window;
    }
    ro.capture_nccl_log = false;
    ro.ops.clear();
    for (Coll c : colls_)
      for (uint64_t bytes : sizes_) ro.ops.push_back(single_op(b_, c, bytes, check));
    RunOutcome r = run_collectives(ro, node_);
    if (!r.ok) {
      if (combo.empty())
        for (const auto& f : r.findings) findings_.push_back(f);
      progress_ << "  " << combo_name(combo) << ": failed ("
                << (r.findings.empty() ? "?" : r.findings[0].title) << ")\n";
      return std::nullopt;
    }
    std::vector<double> busbw;
    std::string line = "  " + combo_name(combo) + (check ? " (checked)" : "") + ":";
    for (const auto& o : r.ops) {
      busbw.push_back(o.busbw);
      char v[32];
      snprintf(v, sizeof v, " %.1f", o.busbw);
      line += v;
    }
    progress_ << line << " GB/s\n" << std::flush;
    return busbw;
  }

 private:
  const BenchOptions& b_;
  const std::vector<Coll>& colls_;
  const std::vector<uint64_t>& sizes_;
  std::ostream& progress_;
  const NodeContext& node_;
  std::vector<report::Finding>& findings_;
};

// A confirmed winner's evidence: where it was measured, how many settings were tried, the confirmation with
// the data check on, and (one setting serves every collective of the job) what it does to each.
std::vector<std::string> winner_evidence(const TuneSearchResult& s, const std::vector<Coll>& colls,
                                         const std::vector<uint64_t>& sizes,
                                         const std::vector<double>& bus_bytes,
                                         const std::vector<double>& confirm, double base_again) {
  const double confirmed = tune_score(confirm, bus_bytes);
  std::vector<std::string> ev = {
      "measured at " + sizes_text(sizes) + " on this node (busbw over all: bus bytes / total time)",
      std::to_string(s.rows.size()) + " settings tried" +
          (s.budget_hit ? " before the time budget ran out" : ""),
      "confirmed with the data check on: " + gbps_with_unit(confirmed) +
          " (default again: " + gbps_with_unit(base_again) + ")"};
  if (colls.size() > 1 && s.rows[0].per_size.size() == bus_bytes.size() && confirm.size() == bus_bytes.size())
    for (size_t i = 0; i < colls.size(); ++i) {
      auto part = [&](const std::vector<double>& v) {
        const size_t n = sizes.size();
        return tune_score({v.begin() + i * n, v.begin() + (i + 1) * n},
                          {bus_bytes.begin() + i * n, bus_bytes.begin() + (i + 1) * n});
      };
      ev.push_back(std::string(coll_info(colls[i]).name) + ": " + gbps_with_unit(part(s.rows[0].per_size)) +
                   " -> " + gbps_with_unit(part(confirm)));
    }
  return ev;
}

}  // namespace

TuneResult run_tune(const BenchOptions& b, const std::vector<uint64_t>& sizes,
                    std::chrono::milliseconds budget, std::ostream& progress, const NodeContext& node) {
  TuneResult t;
  t.colls = b.colls.empty() ? std::vector<Coll>{Coll::all_reduce} : b.colls;
  const std::vector<Coll>& colls = t.colls;
  const int world = b.run.world > 0 ? b.run.world : std::max(b.run.nproc, 2);
  std::vector<double> bus_bytes;  // per (collective, size), the order of the measured busbw
  for (Coll c : colls)
    for (uint64_t s : sizes) bus_bytes.push_back(double(s) * coll_info(c).busbw_factor(world));
  const std::vector<TuneSetting> cands = tune_candidates(b.run.engine);
  if (cands.empty()) {
    t.findings.push_back(comm_finding(report::comm_id::kTuneDefaultBest, Severity::info,
                                      std::string("--tune searches NCCL's settings; the ") +
                                          rules::engine_name(b.run.engine) + " engine has none to try"));
    return t;
  }
  progress << "# tune: " << colls_text(colls) << " at " << sizes_text(sizes)
           << "; busbw (GB/s) per collective and size, in that order\n";
  Measurer measure(b, colls, sizes, progress, node, t.findings);
  TuneSearchResult s = run_tune_search(
      cands, bus_bytes, [&](const TuneCombo& k) { return measure(k); }, budget, 0.005,
      std::chrono::steady_clock::now, kConfirmRuns);
  for (const auto& row : s.rows) t.rows.push_back({row.name, row.score.value_or(0), row.per_size});
  t.base = s.base;
  t.best_busbw = s.best_score;
  if (s.budget_hit) progress << "  (time budget reached: the search stopped there)\n";
  if (s.best.empty()) {
    t.findings.push_back(comm_finding(report::comm_id::kTuneDefaultBest, Severity::info,
                                      "No tried NCCL setting beat the default by 0.5% (" +
                                          gbps_with_unit(t.base) + ": " + colls_text(colls) + " at " +
                                          sizes_text(sizes) + ")"));
    return t;
  }
  t.best = combo_name(s.best);
  // Confirm the winner with the data check on, so a recommendation never breaks correctness, then measure
  // the default once more right after it: a gain that does not hold up twice was noise.
  auto confirm = measure(s.best, true);
  auto again = measure({});
  const double confirmed = confirm ? tune_score(*confirm, bus_bytes) : 0;
  const double base_again = again ? tune_score(*again, bus_bytes) : 0;
  if (!confirm || confirmed <= std::max(t.base, base_again) * 1.005) {
    t.findings.push_back(
        comm_finding(report::comm_id::kTuneDefaultBest, Severity::info,
                     t.best + (confirm ? " did not beat the default again (" + gbps_with_unit(confirmed) +
                                             " vs " + gbps_with_unit(base_again) + "): keep the default"
                                       : " failed with the data check on: keep the default")));
    t.best.clear();
    return t;
  }
  std::vector<std::string> ev = winner_evidence(s, colls, sizes, bus_bytes, *confirm, base_again);
  t.findings.push_back(comm_finding(report::comm_id::kTuneBetter, Severity::info,
                                    t.best + " raises the busbw of " + colls_text(colls) + " from " +
                                        gbps_with_unit(t.base) + " to " + gbps_with_unit(t.best_busbw),
                                    ev, "Add to the job's environment:\n" + how_to_apply(s.best)));
  return t;
}

}  // namespace dd::comm
