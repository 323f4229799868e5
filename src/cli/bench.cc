// `distdoctor bench`: collective bandwidth sweeps with verified data (NCCL or Gloo), per-pair matrix,
// NET transport probe, --tune, and --quick (the short pass `check` runs). Also hosts the hidden
// worker mode (`bench --as-worker PLAN --worker-ranks R`) that the supervising process starts.
// The node is probed once; the engine and the NCCL library are chosen from its facts (rules/engine_choice).
#include "comm/bench.h"

#include <unistd.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "comm/check_pass.h"
#include "comm/engine.h"
#include "comm/worker.h"
#include "probe/collect.h"
#include "probe/self_probe.h"
#include "probe/tool_env.h"
#include "report/report.h"
#include "rules/engine_choice.h"

namespace dd::cli {

namespace {

struct BenchArgs {
  std::string engine, collective = "all_reduce", dtype = "float", min_bytes = "8", max_bytes = "64M";
  double step_factor = 2;
  int warmup = 5, iters = 20, nproc = 0;
  bool threads = false, json = false, no_check = false, only_in = false, only_out = false;
  bool pairs = false, transport = false, tune = false, quick = false, reg = false, graph = false;
  bool fake_hosts = false, timing = false;
  std::string check_mode = "first";
  std::string gpus, nccl_lib, gloo_iface, gloo_host, plot, tune_bytes;
  std::string store, store_prefix = "dd/comm/";
  int world = 0, first_rank = 0;
  bool store_master = false;
  double timeout_s = 0, init_timeout_s = 20;
  // Hidden: worker mode and test hooks.
  std::string as_worker, worker_ranks, fault, wrap;
};

Result<uint64_t> parse_bytes(const std::string& s) {
  if (s.empty()) return Error{"empty size"};
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  std::string unit = end ? end : "";
  for (auto& c : unit) c = char(std::toupper(c));
  if (!unit.empty() && unit.back() == 'B') unit.pop_back();
  if (!unit.empty() && unit.back() == 'I') unit.pop_back();
  double mul = unit.empty()  ? 1
               : unit == "K" ? 1024.0
               : unit == "M" ? 1048576.0
               : unit == "G" ? 1073741824.0
                             : -1;
  if (mul < 0 || v < 0) return Error{"bad size '" + s + "' (use e.g. 8, 64K, 256M, 8G)"};
  return uint64_t(v * mul);
}

std::vector<int> parse_ints(const std::string& s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ','))
    if (!x.empty()) v.push_back(std::atoi(x.c_str()));
  return v;
}

int run_as_worker(const BenchArgs& a) {
  std::ifstream in(a.as_worker);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::cerr << "worker: bad plan " << a.as_worker << ": " << e.what() << "\n";
    return 3;
  }
  int rc =
      comm::run_worker(comm::plan_from_json(j), parse_ints(a.worker_ranks), probe::tool_env().store_token, 3);
  std::cout.flush();
  std::cerr.flush();
  _exit(rc);  // skip library destructors (NCCL, CUDA): the process is done
}

int render(report::Report& r, bool json, std::ostream& out) {
  if (json) {
    out << report::render_json(r).dump(2) << "\n";
  } else {
    report::TextOptions to;
    to.color = report::want_color(1, probe::tool_env().no_color, probe::tool_env().term);
    report::render_text(r, out, to);
  }
  return r.exit_code();
}

void add_sweep_flags(CLI::App& sub, BenchArgs& a) {
  sub.add_option("--engine", a.engine, "nccl (GPUs) or gloo (CPU, TCP); default nccl when GPUs are visible");
  sub.add_option(
      "--collective,-c", a.collective,
      "Comma list of all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv, or all");
  sub.add_option("--min-bytes,-b", a.min_bytes, "Smallest size (8, 64K, 256M, 8G)");
  sub.add_option("--max-bytes,-e", a.max_bytes, "Largest size");
  sub.add_option("--step-factor,-f", a.step_factor, "Multiply the size by this each step")
      ->check(CLI::Range(1.0, 1024.0));
  sub.add_option("--warmup,-w", a.warmup, "Untimed runs per size")->check(CLI::Range(0, 100000));
  sub.add_option("--iters,-n", a.iters, "Timed runs per size")->check(CLI::Range(1, 1000000));
  sub.add_option("--dtype,-d", a.dtype, "float, bfloat16, half or int32");
  sub.add_option("--nproc", a.nproc, "Ranks on this node (default: one per visible GPU; gloo: 2)")
      ->check(CLI::Range(1, 4096));
  sub.add_option("--gpus", a.gpus, "CUDA device of each rank, e.g. 0,1 (default rank i on device i)");
  sub.add_flag("--threads", a.threads, "One process drives all ranks (default: one worker process per rank)");
  sub.add_flag("--in-place-only", a.only_in, "Only in-place runs");
  sub.add_flag("--out-of-place-only", a.only_out, "Only out-of-place runs");
  sub.add_option("--check", a.check_mode,
                 "Data check: first (default: every output element of one run per size and mode, made "
                 "before the warm-up; warm-up and timed runs are not compared), all (also every timed run, "
                 "each then timed on its own between fresh data and its check), none")
      ->check(CLI::IsMember({"first", "all", "none"}));
  sub.add_flag("--no-check", a.no_check, "Same as --check none");
  sub.add_flag("--pairs", a.pairs, "Also measure send/recv between every pair of ranks (at --max-bytes)");
  sub.add_flag("--transport", a.transport,
               "Also run with NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 and report the transport NCCL chose");
  sub.add_flag("--tune", a.tune, "Try NCCL settings on the first collective and print the exports that help");
  sub.add_option("--tune-bytes", a.tune_bytes, "Size for --tune (default --max-bytes)");
  sub.add_flag("--quick", a.quick,
               "The short pass `check` runs: every collective verified, one bandwidth point");
  sub.add_flag("--timing", a.timing,
               "Where the time goes: worker start, CUDA/NCCL/Gloo init, allocation, the collectives, "
               "teardown (text table; with --json under measurements.collectives.timing)");
  sub.add_option("--timeout", a.timeout_s, "Deadline per run in seconds (default from the size)");
  sub.add_option("--init-timeout", a.init_timeout_s, "Deadline for communicator creation in seconds");
  sub.add_flag("--json", a.json, "Print results and findings as JSON");
  sub.add_option("--plot", a.plot, "Write busbw vs size as an SVG file");
}

void add_run_flags(CLI::App& sub, BenchArgs& a) {
  sub.add_option("--nccl-lib", a.nccl_lib,
                 "libnccl.so.2 to load (default: the framework's bundled NCCL, then the loader's)");
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
  sub.add_option("--as-worker", a.as_worker)->group("");
  sub.add_option("--worker-ranks", a.worker_ranks)->group("");
  sub.add_option("--fault", a.fault)->group("");
  sub.add_option("--worker-wrap", a.wrap)->group("");  // tests: "ip netns exec ns{rank}"
  sub.add_flag("--register", a.reg, "NCCL: register the buffers with ncclCommRegister");
  sub.add_flag("--cuda-graph", a.graph, "NCCL: time the runs captured as one CUDA graph");
  sub.add_flag("--fake-hosts", a.fake_hosts,
               "NCCL: make every rank look like its own host (NCCL_HOSTID per rank, P2P and SHM off, sockets "
               "over lo), so ranks sharing one GPU (--gpus 0,0) test the inter-node path");
}

// The run options: flags, plus the engine and NCCL library chosen from the facts.
comm::RunOptions run_options(const BenchArgs& a, const probe::NodeFacts& facts) {
  comm::RunOptions r;
  r.engine = rules::choose_engine(facts, a.engine, a.nccl_lib, comm::nccl_engine_built()).engine;
  if (r.engine == "nccl") r.nccl_lib = rules::choose_nccl_lib(facts, a.nccl_lib).path;
  r.nproc = a.nproc;
  r.threads = a.threads;
  r.devices = parse_ints(a.gpus);
  r.gloo_iface = a.gloo_iface;
  r.gloo_host = a.gloo_host;
  r.fault = a.fault;
  r.register_buffers = a.reg;
  r.cuda_graph = a.graph;
  r.store_url = a.store;
  // DISTDOCTOR_TOKEN is the job token users set (as for check); DD_STORE_TOKEN is how workers receive it.
  const probe::ToolEnv& tool = probe::tool_env();
  r.store_token = !tool.token.empty() ? tool.token : tool.store_token;
  r.store_prefix = a.store_prefix;
  r.world = a.world;
  r.first_rank = a.first_rank;
  r.store_master = a.store_master;
  if (a.fake_hosts)
    r.env.insert(r.env.end(), {{"NCCL_HOSTID", "distdoctor-fake-host-{rank}"},
                               {"NCCL_P2P_DISABLE", "1"},
                               {"NCCL_SHM_DISABLE", "1"},
                               {"NCCL_SOCKET_IFNAME", "lo"}});
  std::stringstream ws(a.wrap);
  for (std::string w; ws >> w;) r.wrap.push_back(w);
  r.init_timeout = std::chrono::milliseconds(int64_t(a.init_timeout_s * 1000));
  return r;
}

// The sweep: collectives, dtype, sizes, repetitions; an Error names the flag at fault.
Result<comm::BenchOptions> bench_options(const BenchArgs& a, comm::RunOptions run) {
  comm::BenchOptions b;
  b.run = std::move(run);
  auto dt = comm::dtype_from_name(a.dtype);
  if (!dt) return Error{"unknown --dtype " + a.dtype};
  b.dtype = *dt;
  b.colls.clear();
  std::stringstream ss(a.collective);
  for (std::string c; std::getline(ss, c, ',');) {
    if (c == "all") {
      for (const auto& ci : comm::collectives()) b.colls.push_back(ci.coll);
      continue;
    }
    auto cc = comm::coll_from_name(c);
    if (!cc) return Error{"unknown collective " + c};
    b.colls.push_back(*cc);
  }
  auto mn = parse_bytes(a.min_bytes), mx = parse_bytes(a.max_bytes);
  if (!mn || !mx) return (!mn ? mn.error() : mx.error());
  b.min_bytes = *mn;
  b.max_bytes = std::max(*mx, *mn);
  b.step_factor = a.step_factor;
  b.warmup = a.warmup;
  b.iters = a.iters;
  b.check = !a.no_check && a.check_mode != "none";
  b.check_all = b.check && a.check_mode == "all";
  b.in_place = !a.only_out;
  b.out_of_place = !a.only_in;
  if (a.timeout_s > 0) b.op_timeout = std::chrono::milliseconds(int64_t(a.timeout_s * 1000));
  return b;
}

int run_quick(const BenchArgs& a, const comm::RunOptions& run, const comm::NodeContext& node) {
  comm::CheckPassOptions co;
  co.engine = run.engine;
  co.nproc = a.nproc;
  co.nccl_lib = run.nccl_lib;
  co.init_timeout = run.init_timeout;
  report::Report r;
  r.title = "distdoctor bench --quick";
  comm::CheckPassResult res = comm::run_check_pass_measured(co, node);
  r.findings = std::move(res.findings);
  if (a.timing) {  // JSON: the measurements (timing included); text: the phase table before the report
    r.measurements = nlohmann::json{{"collectives", res.measurements}};
    if (!a.json) comm::print_timing(res.timing, std::cout);
  }
  return render(r, a.json, std::cout);
}

nlohmann::json tune(const BenchArgs& a, const comm::BenchOptions& b, const comm::NodeContext& node,
                    std::ostream& log, report::Report& r) {
  auto tb = a.tune_bytes.empty() ? Result<uint64_t>(b.max_bytes) : parse_bytes(a.tune_bytes);
  comm::TuneResult t = comm::run_tune(b, tb ? *tb : b.max_bytes, log, node);
  r.findings = t.findings;
  if (!t.best.empty()) log << "# recommended:\n" << t.findings.back().fix;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [n, v] : t.rows) rows.push_back({{"setting", n}, {"busbw_gbps", v}});
  return {
      {"tune", rows}, {"best", t.best}, {"default_busbw_gbps", t.base}, {"best_busbw_gbps", t.best_busbw}};
}

// The sweep, then the extra passes it asks for (--plot, --pairs, --transport).
nlohmann::json sweep(const BenchArgs& a, const comm::BenchOptions& b, const comm::NodeContext& node,
                     report::Report& r) {
  comm::BenchResult res = comm::run_bench(b, node);
  if (!a.json) comm::print_bench_table(res, b, std::cout);
  nlohmann::json j = comm::bench_json(res, b);
  if (a.timing) {
    j["timing"] = comm::timing_json(res.run.timing);
    if (!a.json) comm::print_timing(res.run.timing, std::cout);
  }
  r.findings = res.findings;
  if (!a.plot.empty()) {
    std::ofstream out(a.plot);
    out << comm::bench_svg(res, b);
    if (!out) std::cerr << "distdoctor bench: cannot write " << a.plot << "\n";
  }
  if (a.pairs && res.run.ok) {
    comm::PairMatrix m = comm::run_pair_matrix(b, b.max_bytes, node);
    if (!a.json) comm::print_pair_matrix(m, std::cout);
    for (auto& f : m.findings) r.findings.push_back(f);
    j["pairs"] = m.busbw;
  }
  if (a.transport && b.run.engine == "nccl" && res.run.ok) {
    comm::TransportProbe p =
        comm::run_transport_probe(b, res.run.nccl_log, std::min<uint64_t>(b.max_bytes, 64ull << 20), node);
    for (auto& f : p.findings) r.findings.push_back(f);
    if (!p.net_run.ops.empty()) j["net_probe_busbw_gbps"] = p.net_run.ops[0].busbw;
  }
  return j;
}

int run_bench_command(const BenchArgs& a) {
  probe::ProbeOptions po;
  po.nccl_lib = a.nccl_lib;
  const probe::NodeFacts facts = probe::collect_node_facts(po);
  const probe::SelfProcess self = probe::read_self_process();
  const comm::NodeContext node{facts, probe::tool_env(), self};
  comm::RunOptions run = run_options(a, facts);
  if (a.quick) return run_quick(a, run, node);
  auto b = bench_options(a, std::move(run));
  if (!b) {
    std::cerr << "distdoctor bench: " << b.error().message() << "\n";
    return report::kExitCannotRun;
  }
  report::Report r;
  r.title = "distdoctor bench";
  nlohmann::json j = a.tune ? tune(a, *b, node, a.json ? std::cerr : std::cout, r) : sweep(a, *b, node, r);
  if (a.json) {
    nlohmann::json rep = report::render_json(r);
    j["verdict"] = rep.value("verdict", "");
    j["findings"] = rep.value("findings", nlohmann::json::array());
    std::cout << j.dump(2) << "\n";
    return r.exit_code();
  }
  std::cout << "\n";
  return render(r, false, std::cout);
}

}  // namespace

Runner setup_bench(CLI::App& sub) {
  auto a = std::make_shared<BenchArgs>();
  add_sweep_flags(sub, *a);
  add_run_flags(sub, *a);
  return [a]() -> int { return a->as_worker.empty() ? run_bench_command(*a) : run_as_worker(*a); };
}

}  // namespace dd::cli
