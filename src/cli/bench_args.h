// The `bench` command's flags: BenchArgs, parsed once by CLI11, and the size/list parsers they need.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace dd::cli {

struct BenchArgs {
  std::string engine, collective = "all_reduce", dtype = "float", min_bytes = "8", max_bytes = "64M";
  double step_factor = 2;
  int warmup = 5, iters = 20, nproc = 0;
  bool threads = false, json = false, no_check = false, only_in = false, only_out = false;
  bool pairs = false, transport = false, tune = false, quick = false, reg = false, graph = false;
  bool window = false;
  bool fake_hosts = false, timing = false;
  std::string check_mode = "first";
  std::string gpus, nccl_lib, gloo_iface, gloo_host, plot, tune_bytes;
  std::string metrics_file;  // --metrics FILE: Prometheus text of the sweep (report/metrics.h)
  double tune_seconds = 60;
  std::string store, store_prefix = "dd/comm/";
  int world = 0, first_rank = 0;
  bool store_master = false;
  double timeout_s = 0, init_timeout_s = 20;
  // Hidden: worker mode and test hooks.
  std::string as_worker, worker_ranks, fault, wrap;
};

// "8", "64K", "256M", "8G" (binary units, optional B/iB) -> bytes.
Result<uint64_t> parse_bytes(const std::string& s);
// "0,1,3" -> {0, 1, 3}.
inline constexpr int kMaxGpuIndex = 1023;      // --gpus: a CUDA device index
inline constexpr int kMaxRankIndex = 1 << 20;  // --worker-ranks (the supervisor's own hidden flag)
// A comma list checked by index_list at parse time ("" -> none).
std::vector<int> parse_ints(const std::string& s);

// The sweep flags (what, how big, how often) and the run flags (engine, store, NCCL options, hidden hooks).
void add_sweep_flags(CLI::App& sub, BenchArgs& a);
void add_run_flags(CLI::App& sub, BenchArgs& a);

}  // namespace dd::cli
