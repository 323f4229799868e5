// The bandwidth benchmark behind `distdoctor bench`: size sweeps per collective (out-of-place and
// in-place), the terminal table and JSON, comparison with the link limit, the per-pair send/recv
// matrix, the NET transport probe, and --tune over NCCL settings.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "comm/link.h"
#include "comm/run/runner.h"

namespace dd::comm {

struct BenchOptions {
  RunOptions run;
  std::vector<Coll> colls = {Coll::all_reduce};
  Dtype dtype = Dtype::f32;
  uint64_t min_bytes = 8, max_bytes = 64ull << 20;
  double step_factor = 2;
  int warmup = 5, iters = 20;
  bool out_of_place = true, in_place = true;
  bool check = true;
  bool check_all = false;  // --check all: every timed run checked (default: the first run of each size)
  std::chrono::milliseconds op_timeout{0};  // 0: from the size
};

// The ordered list of runs of a sweep (sizes rounded so every rank gets whole elements).
std::vector<OpRequest> build_sweep(const BenchOptions& b, int world);
// Per-op deadline: 10 s plus the time the bytes take at 5 GB/s.
std::chrono::milliseconds auto_timeout(uint64_t bytes, int runs);
// One run of `c` at `bytes` with the sweep's dtype, repetitions and deadline.
OpRequest single_op(const BenchOptions& b, Coll c, uint64_t bytes, bool check);

struct BenchResult {
  RunOutcome run;
  LinkFacts link_facts;
  LinkLimit link;
  std::vector<report::Finding> findings;  // run failures plus link and transport findings
};

// Told of each finished op while the sweep runs (the printer's hook: cli prints, comm measures); `head` holds
// what is known before the first op: run.world, run.library, link.
using OnBenchOp = std::function<void(const BenchResult& head, const OpOutcome& op)>;
BenchResult run_bench(const BenchOptions& b, const NodeContext& node, const OnBenchOp& on_op = {});
nlohmann::json bench_json(const BenchResult& r, const BenchOptions& b);
// nccl-tests' closing figure: the mean busbw of every complete run, both modes (0 when none completed).
double avg_busbw(const RunOutcome& run);
std::string bench_svg(const BenchResult& r, const BenchOptions& b);

// Link findings: busbw at the largest size as a fraction of the link limit.
std::vector<report::Finding> link_findings(const RunOutcome& run, const LinkLimit& link);

// Per-pair send/recv matrix: one run per pair of ranks, busbw per pair, pairs far below the median flagged.
struct PairMatrix {
  int world = 0;
  std::vector<std::vector<double>> busbw;  // [i][j], GB/s; 0 on the diagonal
  std::vector<report::Finding> findings;
};
PairMatrix run_pair_matrix(const BenchOptions& b, uint64_t bytes, const NodeContext& node);
void print_pair_matrix(const PairMatrix& m, std::ostream& out);

// NET transport probe: P2P and SHM off, so NCCL must use its network path; reports what it chose.
struct TransportProbe {
  RunOutcome normal_log_run;  // not re-run: filled from the sweep when available
  RunOutcome net_run;
  std::vector<report::Finding> findings;
};
TransportProbe run_transport_probe(const BenchOptions& b, const NcclLogSummary& normal, uint64_t bytes,
                                   const NodeContext& node);

// --tune: NCCL settings at the user's sizes, searched greedily within `budget` (tune_search.h); prints each
// row as it comes and returns the settings that beat the default.
struct TuneRowResult {
  std::string name;  // "NCCL_MIN_NCHANNELS=32 + NCCL_ALGO=Tree"
  double busbw = 0;  // over all sizes (bus bytes / total time); 0: the run failed
  std::vector<double> per_size;
};
struct TuneResult {
  std::vector<Coll>
      colls;  // the collectives tuned (the --collectives, else all_reduce); per_size follows them
  std::vector<TuneRowResult> rows;
  std::string best;  // "" when the default is best
  double base = 0, best_busbw = 0;
  std::vector<report::Finding> findings;
};
TuneResult run_tune(const BenchOptions& b, const std::vector<uint64_t>& sizes,
                    std::chrono::milliseconds budget, std::ostream& progress, const NodeContext& node);

}  // namespace dd::comm
