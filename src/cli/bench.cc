// `distdoctor bench`: collective bandwidth sweeps with verified data (NCCL or Gloo), per-pair matrix,
// NET transport probe, --tune, and --quick (the short pass `check` runs). The hidden worker mode
// (`bench --as-worker PLAN`) is in bench_worker.cc.
// The node is probed once; the engine and the NCCL library are chosen from its facts (rules/engine_choice).
#include "comm/bench.h"

#include <unistd.h>

#include <iostream>
#include <sstream>

#include "cli/bench_args.h"
#include "cli/bench_guards.h"
#include "cli/bench_table.h"
#include "cli/bench_worker.h"
#include "cli/command.h"
#include "cli/flag_values.h"
#include "cli/output_paths.h"
#include "cli/print_report.h"
#include "cli/progress_printer.h"
#include "cli/request_limits.h"
#include "comm/check_pass.h"
#include "comm/engine/engine.h"
#include "comm/run/run_setup.h"
#include "comm/run/worker.h"
#include "common/json_limits.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "common/wall_clock.h"
#include "probe/collect.h"
#include "probe/fs.h"
#include "probe/host_memory.h"
#include "probe/regular_file.h"
#include "probe/self_probe.h"
#include "probe/tool_env.h"
#include "report/metrics.h"
#include "report/report.h"
#include "rules/engine_choice.h"

namespace dd::cli {

namespace {

int render(report::Report& r, bool json, std::ostream& out) {
  show_report(r, {.json = json, .envelope = {.command = "bench"}}, out);
  return r.exit_code();
}

// The run options: flags, plus the engine and NCCL library chosen from the facts.
comm::RunOptions run_options(const BenchArgs& a, const probe::NodeFacts& facts) {
  comm::RunOptions r;
  r.engine = rules::choose_engine(facts, a.engine, a.nccl_lib, comm::nccl_engine_built()).engine;
  if (r.engine == rules::EngineKind::nccl) r.nccl_lib = rules::choose_nccl_lib(facts, a.nccl_lib).path;
  r.nproc = a.nproc;
  r.threads = a.threads;
  r.devices = parse_ints(a.gpus);
  r.gloo_iface = a.gloo_iface;
  r.gloo_host = a.gloo_host;
  r.fault = a.fault;
  r.register_buffers = a.reg;
  r.cuda_graph = a.graph;
  r.symmetric_windows = a.window;
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
  b.max_bytes = *mx;  // sweep_range_problem refused -b above -e
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
  co.threads = run.threads;
  co.nccl_lib = run.nccl_lib;
  co.init_timeout = run.init_timeout;
  if (a.timeout_s > 0) co.bandwidth_timeout = std::chrono::milliseconds(int64_t(a.timeout_s * 1000));
  report::Report r;
  r.title = "distdoctor bench --quick";
  r.facts = node.facts;
  comm::CheckPassResult res = comm::run_check_pass_measured(co, node);
  r.findings = std::move(res.findings);
  if (a.timing) {  // JSON: the measurements (timing included); text: the phase table before the report
    r.measurements = nlohmann::json{{"collectives", res.measurements}};
    if (!a.json) comm::print_timing(res.timing, std::cout);
  }
  return render(r, a.json, std::cout);
}

// --metrics: the sweep's figures (the JSON document, redacted) as Prometheus text; a failed write is an
// error.
int write_bench_metrics(const std::string& path, nlohmann::json j, int rc) {
  redact_json(j);
  auto written = probe::local_fs().write_atomically(path, report::bench_metrics(j, unix_seconds_now()));
  if (written) return rc;
  std::cerr << "distdoctor bench: --metrics: " << shown(written.error().message()) << "\n";
  return report::kExitCannotRun;
}

nlohmann::json tune(const BenchArgs& a, const comm::BenchOptions& b, const comm::NodeContext& node,
                    std::ostream& log, report::Report& r) {
  std::vector<uint64_t> sizes = {b.max_bytes};
  if (!a.tune_bytes.empty())
    if (auto tb = parse_byte_size_list(a.tune_bytes)) sizes = *tb;
  const auto budget = std::chrono::milliseconds(int64_t(a.tune_seconds * 1000));
  comm::TuneResult t = comm::run_tune(b, sizes, budget, log, node);
  r.findings = t.findings;
  if (!t.best.empty()) log << "# recommended:\n" << t.findings.back().fix;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& x : t.rows)
    rows.push_back({{"setting", x.name}, {"busbw_gbps", x.busbw}, {"busbw_gbps_per_size", x.per_size}});
  nlohmann::json colls = nlohmann::json::array();  // busbw_gbps_per_size: per collective, then per size
  for (comm::Coll c : t.colls) colls.push_back(comm::coll_info(c).name);
  return {{"tune", rows},   {"collectives", colls},         {"sizes", sizes},
          {"best", t.best}, {"default_busbw_gbps", t.base}, {"best_busbw_gbps", t.best_busbw}};
}

// The sweep, then the extra passes it asks for (--plot, --pairs, --transport). A plot that could not be
// written sets *plot_failed (exit 3).
nlohmann::json sweep(const BenchArgs& a, const comm::BenchOptions& b, const comm::NodeContext& node,
                     report::Report& r, bool* plot_failed) {
  // Each row as soon as it is measured (nccl-tests' habit). With --json, stdout carries only the one
  // document `| jq` reads, so the rows go to stderr: a long sweep still shows its progress on the terminal
  // while the pipe gets clean JSON (as --tune's progress does).
  BenchTable table(b, a.json ? std::cerr : std::cout);
  comm::BenchResult res = comm::run_bench(
      b, node, [&](const comm::BenchResult& head, const comm::OpOutcome& op) { table.on_op(head, op); });
  table.finish(res);
  nlohmann::json j = comm::bench_json(res, b);
  if (res.run.world == 1)
    j["note"] =
        "one rank: busbw is 0 (no data crosses between ranks) and in-place algbw is 0 (nothing is copied)";
  if (a.timing) {
    j["timing"] = comm::timing_json(res.run.timing);
    if (!a.json) comm::print_timing(res.run.timing, std::cout);
  }
  r.findings = res.findings;
  if (!a.plot.empty()) {
    if (auto written = probe::local_fs().write_atomically(a.plot, comm::bench_svg(res, b)); !written) {
      std::cerr << "distdoctor bench: --plot: " << shown(written.error().message()) << "\n";
      *plot_failed = true;
    }
  }
  if (a.pairs && res.run.ok) {
    comm::PairMatrix m = comm::run_pair_matrix(b, b.max_bytes, node);
    if (!a.json) comm::print_pair_matrix(m, std::cout);
    for (auto& f : m.findings) r.findings.push_back(f);
    j["pairs"] = m.busbw;
  }
  if (a.transport && b.run.engine == rules::EngineKind::nccl && res.run.ok) {
    comm::TransportProbe p =
        comm::run_transport_probe(b, res.run.nccl_log, std::min<uint64_t>(b.max_bytes, 64ull << 20), node);
    for (auto& f : p.findings) r.findings.push_back(f);
    if (!p.net_run.ops.empty()) j["net_probe_busbw_gbps"] = p.net_run.ops[0].busbw;
  }
  return j;
}

// Why the run cannot be on this node ("" when it can): more workers than GPUs, an engine this build lacks,
// buffers past a GPU's memory.
std::string node_refusal(const BenchArgs& a, const comm::RunOptions& run, const probe::NodeFacts& facts) {
  std::string refused = workers_beyond_node("--nproc-per-node", a.nproc, facts);
  if (refused.empty() && run.engine == rules::EngineKind::gloo && !comm::gloo_engine_built())
    refused =
        comm::gloo_missing_reason() +
        ", and the run needs it (no GPU that NCCL can use, or --engine gloo): run bench where NCCL sees "
        "the GPUs, or use a build with Gloo (`make` on Debian, or `make portable DD_GLOO_SRC=DIR`)";
  if (refused.empty() && run.engine == rules::EngineKind::nccl && !a.quick)
    if (auto mx = parse_bytes(a.max_bytes)) refused = buffers_beyond_gpu("-e", *mx, facts);
  if (refused.empty() && run.engine == rules::EngineKind::nccl && a.tune && !a.tune_bytes.empty())
    if (auto tb = parse_byte_size_list(a.tune_bytes))
      for (uint64_t s : *tb)
        if (refused.empty()) refused = buffers_beyond_gpu("--tune-bytes", s, facts);
  return refused;
}

// The metrics file (first: the JSON's exit_code says whether it was written), then the report as text or as
// the JSON envelope every command's --json has (docs/json.md) with the sweep's own members beside it.
int finish(const BenchArgs& a, report::Report& r, nlohmann::json j, int rc, const std::string& node) {
  if (!a.metrics_file.empty()) {
    nlohmann::json m = j;
    m["verdict"] = report::verdict_name(r.verdict());
    m["findings"] = r.findings;
    rc = write_bench_metrics(a.metrics_file, std::move(m), rc);
  }
  if (!a.json) {
    std::cout << "\n";
    render(r, false, std::cout);
    return rc;
  }
  nlohmann::json out = report::envelope_json(r, {.command = "bench", .node = node, .exit_code = rc});
  for (auto& [k, v] : j.items()) out[k] = std::move(v);
  std::cout << output_json(std::move(out)) << "\n";
  return rc;
}

int run_bench_command(const BenchArgs& a) {
  probe::ProbeOptions po;
  po.nccl_lib = a.nccl_lib;
  if (!a.quick)  // before the probe: a sweep that cannot be is refused at once
    if (std::string bad = sweep_range_problem(a); !bad.empty()) {
      std::cerr << "distdoctor bench: " << shown(bad) << "\n";
      return report::kExitCannotRun;
    }
  const probe::NodeFacts facts = probe::collect_node_facts(po);
  const probe::SelfProcess self = probe::read_self_process();
  const comm::NodeContext node{facts, probe::tool_env(), self, progress_printer("store")};
  comm::RunOptions run = run_options(a, facts);
  if (std::string refused = node_refusal(a, run, facts); !refused.empty()) {
    std::cerr << "distdoctor bench: " << refused << "\n";
    return report::kExitCannotRun;
  }
  if (a.quick) return run_quick(a, run, node);
  auto b = bench_options(a, std::move(run));
  if (!b) {
    std::cerr << "distdoctor bench: " << b.error().message() << "\n";
    return report::kExitCannotRun;
  }
  if (!a.tune) {  // before any worker allocates: refused with the figures, not killed by the OOM killer
    const int ranks = comm::local_rank_count(b->run, facts);
    const std::string no_room =
        sweep_memory_problem(*b, ranks, facts, probe::read_host_memory(*probe::make_real_fs()));
    if (!no_room.empty()) {
      std::cerr << "distdoctor bench: " << shown(no_room) << "\n";
      return report::kExitCannotRun;
    }
  }
  for (const auto& [flag, path] : {std::pair{"--plot", a.plot}, std::pair{"--metrics", a.metrics_file}}) {
    const std::string problem = path.empty() ? "" : output_path_problem(flag, path);
    if (!problem.empty()) {  // refused before the run, not after it
      std::cerr << "distdoctor bench: " << shown(problem) << "\n";
      return report::kExitCannotRun;
    }
  }
  report::Report r;
  r.title = "distdoctor bench";
  r.facts = facts;
  bool plot_failed = false;
  nlohmann::json j =
      a.tune ? tune(a, *b, node, a.json ? std::cerr : std::cout, r) : sweep(a, *b, node, r, &plot_failed);
  return finish(a, r, std::move(j), plot_failed ? report::kExitCannotRun : r.exit_code(),
                facts.host.hostname);
}

}  // namespace

Runner setup_bench(CLI::App& sub) {
  auto a = std::make_shared<BenchArgs>();
  add_sweep_flags(sub, *a);
  add_run_flags(sub, *a);
  return [a]() -> int { return a->as_worker.empty() ? run_bench_command(*a) : run_as_worker(*a); };
}

}  // namespace dd::cli
