// The `bench` command's flags and their parsers (see bench_args.h).
#include "cli/bench_args.h"

#include <sstream>

#include "cli/flag_values.h"
#include "comm/engine/collective.h"
#include "comm/run/worker.h"

namespace dd::cli {

Result<uint64_t> parse_bytes(const std::string& s) { return parse_byte_size(s); }

namespace {
// Every collective's name, and "all".
std::vector<std::string> collective_names() {
  std::vector<std::string> names{"all"};
  for (const auto& c : comm::collectives()) names.push_back(c.name);
  return names;
}
}  // namespace

std::vector<int> parse_ints(const std::string& s) {
  if (s.empty()) return {};
  return parse_index_list(s, kMaxRankIndex).value_or({});  // validated at parse time (index_list)
}

namespace {
// The sweep's extra passes (--pairs, --transport, --tune), --quick, its deadlines and its output files.
void add_extras_and_outputs(CLI::App& sub, BenchArgs& a) {
  sub.add_flag("--pairs", a.pairs, "Also measure send/recv between every pair of ranks (at --max-bytes)");
  sub.add_flag("--transport", a.transport,
               "Also run with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 and report the transport NCCL chose");
  sub.add_flag(
      "--tune", a.tune,
      "Try NCCL settings on the chosen collectives (each run measures all of them at every --tune-bytes "
      "size) and print the exports that help");
  sub.add_option("--tune-bytes", a.tune_bytes,
                 "Sizes for --tune, your job's message sizes, e.g. 64M,256M,1G (default --max-bytes)")
      ->check(byte_size_list());
  sub.add_option("--tune-seconds", a.tune_seconds,
                 "Time budget of --tune in seconds, the final confirmation included")
      ->check(seconds_in(1.0, 3600.0));
  sub.add_flag("--quick", a.quick,
               "The short pass `check` runs: every collective verified, one bandwidth point");
  sub.add_flag("--timing", a.timing,
               "Where the time goes: worker start, CUDA/NCCL/Gloo init, allocation, the collectives, "
               "teardown (text table; with --json under measurements.collectives.timing)");
  sub.add_option("--op-timeout", a.timeout_s, "Deadline per run in seconds (default from the size)")
      ->check(seconds_in(0.0, 86400.0));
  sub.add_option("--timeout", a.timeout_s)
      ->check(seconds_in(0.0, 86400.0))
      ->group(kOldNamesGroup);  // its old name
  sub.add_option("--init-timeout", a.init_timeout_s, "Deadline for communicator creation in seconds")
      ->check(seconds_in(1.0, 600.0));
  sub.add_flag("--json", a.json, "Print results and findings as JSON");
  sub.add_option("--plot", a.plot, "Write busbw vs size as an SVG file")->type_name("FILE");
  sub.add_option("--metrics", a.metrics_file,
                 "Also write the figures as Prometheus text to FILE, atomically (node_exporter's textfile "
                 "collector)")
      ->excludes("--quick")
      ->type_name("FILE");
}
}  // namespace

void add_sweep_flags(CLI::App& sub, BenchArgs& a) {
  sub.add_option("--engine", a.engine, "nccl (GPUs) or gloo (CPU, TCP); default nccl when GPUs are visible")
      ->check(one_of({"nccl", "gloo"}));
  sub.add_option("--collective,-c", a.collective,
                 "Comma list of all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, "
                 "sendrecv, or all")
      ->check(list_of(collective_names()));
  sub.add_option("--min-bytes,-b", a.min_bytes, "Smallest size (8, 64K, 256M, 8G)")->check(byte_size());
  sub.add_option("--max-bytes,-e", a.max_bytes, "Largest size")->check(byte_size());
  sub.add_option("--step-factor,-f", a.step_factor, "Multiply the size by this each step")
      ->check(finite_in(1.0, 1024.0));
  sub.add_option("--warmup,-w", a.warmup, "Untimed runs per size")->check(CLI::Range(0, 100000));
  sub.add_option("--iters,-n", a.iters, "Timed runs per size")->check(CLI::Range(1, 1000000));
  sub.add_option("--dtype,-d", a.dtype, "float, bfloat16, half or int32")
      ->check(one_of({"float", "float32", "f32", "fp32", "bfloat16", "bf16", "half", "float16", "f16", "fp16",
                      "int32", "int", "i32"}));
  sub.add_option("--nproc-per-node,--nproc_per_node", a.nproc,
                 "Ranks on this node (default: one per visible GPU; gloo: 2)")
      ->check(CLI::Range(1, 4096));
  sub.add_option("--nproc", a.nproc)->check(CLI::Range(1, 4096))->group(kOldNamesGroup);  // its old name
  sub.add_option("--gpus", a.gpus, "CUDA device of each rank, e.g. 0,1 (default rank i on device i)")
      ->check(index_list(kMaxGpuIndex));
  sub.add_flag("--threads", a.threads, "One process drives all ranks (default: one worker process per rank)");
  sub.add_flag("--in-place-only", a.only_in, "Only in-place runs");
  sub.add_flag("--out-of-place-only", a.only_out, "Only out-of-place runs");
  sub.add_option("--check", a.check_mode,
                 "Data check: first (default: every output element of one run per size and mode, made "
                 "before the warm-up; warm-up and timed runs are not compared), all (also every timed run, "
                 "each then timed on its own between fresh data and its check), none")
      ->check(CLI::IsMember({"first", "all", "none"}));
  sub.add_flag("--no-check", a.no_check, "Same as --check none");
  add_extras_and_outputs(sub, a);
}

void add_run_flags(CLI::App& sub, BenchArgs& a) {
  sub.add_option("--nccl-lib", a.nccl_lib,
                 "libnccl.so.2 to load (default: the framework's bundled NCCL, then the loader's)")
      ->type_name("FILE");
  sub.add_option("--gloo-iface", a.gloo_iface, "Gloo: interface to use (default GLOO_SOCKET_IFNAME)");
  sub.add_option("--gloo-host", a.gloo_host, "Gloo: address to bind (default 127.0.0.1)");
  sub.add_option(
      "--store", a.store,
      "Store shared by every node's ranks (tcp://HOST:PORT, etcd://...; token in DISTDOCTOR_TOKEN)");
  sub.add_flag("--store-master", a.store_master, "Serve --store (embedded TCP store) from this node");
  sub.add_option("--store-prefix", a.store_prefix, "Key prefix of this run in --store (same on every node)");
  sub.add_option("--world", a.world, "Ranks in the whole job, when several nodes run bench together")
      ->check(CLI::Range(1, 1 << 20));
  sub.add_option("--first-rank", a.first_rank, "Global rank of this node's first rank")
      ->check(CLI::Range(0, 1 << 20));
  sub.add_option(comm::kAsWorkerFlag, a.as_worker)->group("");  // comm's worker contract (comm/worker.h)
  sub.add_option(comm::kWorkerRanksFlag, a.worker_ranks)->check(index_list(kMaxRankIndex))->group("");
  sub.add_option("--fault", a.fault)->group("");
  sub.add_option("--worker-wrap", a.wrap)->group("");  // tests: "ip netns exec ns{rank}"
  sub.add_flag("--register", a.reg, "NCCL: register the buffers with ncclCommRegister");
  sub.add_flag("--cuda-graph", a.graph, "NCCL: time the runs captured as one CUDA graph");
  sub.add_flag(
      "--symmetric-window", a.window,
      "NCCL 2.27+: buffers from ncclMemAlloc registered as symmetric windows (one rank per process)");
  sub.add_flag("--fake-hosts", a.fake_hosts,
               "NCCL: make every rank look like its own host (NCCL_HOSTID per rank, P2P and SHM off, sockets "
               "over lo), so ranks sharing one GPU (--gpus 0,0) test the inter-node path");
}

}  // namespace dd::cli
