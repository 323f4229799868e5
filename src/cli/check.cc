// `distdoctor check`: parse the options once (cluster::CheckArgs), collect this node's facts (or load them
// with --facts), then either run the rules here (optionally with the short collective pass, --collectives)
// or hand the facts to the multi-node flow in src/cluster/.
#include <chrono>
#include <iostream>
#include <sstream>
#include <tuple>
#include <utility>

#include "cli/command.h"
#include "cli/flag_values.h"
#include "cli/print_report.h"
#include "cli/progress_printer.h"
#include "cli/torchrun_flags.h"
#include "cluster/check_args.h"
#include "cluster/cluster_check.h"
#include "comm/check_pass.h"
#include "comm/cross_node.h"
#include "comm/engine/engine.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "probe/collect.h"
#include "probe/env_probe.h"
#include "probe/facts_json.h"
#include "probe/fs.h"
#include "probe/host_probe.h"
#include "probe/regular_file.h"
#include "probe/self_probe.h"
#include "probe/tool_env.h"
#include "report/emit.h"
#include "report/report.h"
#include "rules/engine_choice.h"
#include "rules/rule.h"

namespace dd::cli {

namespace {

// How check's report is printed: its flags, with colour from the terminal and NO_COLOR (print_report.h);
// `node`: the checked node's host name (--facts: the recorded one's), the JSON's "node".
report::EmitOptions emit_options(const cluster::CheckArgs& a, const std::string& node) {
  return {.json = a.json,
          .brief = a.brief,
          .summary = a.summary,
          .color = color_for(1),
          .fail_on = a.fail_on,
          .metrics_file = a.metrics_file,
          .write_file = [](const std::string& path,
                           std::string_view text) { return probe::local_fs().write_atomically(path, text); },
          .envelope = {.command = "check", .node = node}};
}
using cluster::CheckArgs;

// Runs the pass into `r` (its notes, findings and measurements); true when every collective passed.
bool add_collectives(report::Report& r, const probe::NodeFacts& f, const CheckArgs& a, double probe_s) {
  comm::CheckPassOptions co;
  const rules::EngineChoice choice = rules::choose_engine(f, a.engine, a.nccl_lib, comm::nccl_engine_built());
  const std::string& why = choice.reason;
  co.engine = choice.engine;
  co.nproc = a.nproc_per_node;
  co.nccl_lib =
      choice.engine == rules::EngineKind::nccl ? rules::choose_nccl_lib(f, a.nccl_lib).path : a.nccl_lib;
  co.init_timeout = std::chrono::milliseconds(int64_t(a.init_timeout_s * 1000));
  if (choice.engine == rules::EngineKind::gloo)
    co.bandwidth_bytes = 32ull << 20;  // TCP on one node: keep the pass short
  const probe::SelfProcess self = probe::read_self_process();
  auto res = comm::run_check_pass_measured(co, {f, probe::tool_env(), self});
  r.notes.push_back(std::string("collectives: ") + rules::engine_name(choice.engine) + " engine (" + why +
                    ")");
  for (auto& n : res.notes) r.notes.push_back(std::move(n));
  for (auto& x : res.findings) r.add(std::move(x));
  res.measurements["engine_reason"] = why;
  res.measurements["timing"]["probe_s"] = probe_s;  // facts probe before the pass
  r.measurements = nlohmann::json{{"collectives", res.measurements}};
  if (a.timing && !a.json) {
    std::stringstream t;
    res.timing.phases.insert(res.timing.phases.begin(),
                             {"node facts probe, before the pass", probe_s, "supervisor"});
    comm::print_timing(res.timing, t);
    for (std::string line; std::getline(t, line);) r.notes.push_back(line);  // one note per line
  }
  return res.measurements.value("ok", false);
}

// The node's options: what to probe, how to print.
CLI::Option* add_node_options(CLI::App& sub, CheckArgs& a) {
  auto* facts_opt = sub.add_option("--facts", a.facts_file,
                                   "Run the rules on recorded facts (from `distdoctor facts --json`)")
                        ->type_name("FILE");
  sub.add_option("--nccl-lib", a.nccl_lib, "Also inspect this libnccl.so (the one your framework loads)")
      ->type_name("FILE");
  sub.add_option("--nproc-per-node,--nproc_per_node", a.nproc_per_node,
                 "Processes the job starts on this node")
      ->check(CLI::Range(1, 4096));
  sub.add_flag("--json", a.json, "Print the report as JSON");
  sub.add_flag("--cuda-init", a.cuda_init, "Also initialise CUDA (cuInit, ~0.5 s) and read its device count");
  sub.add_flag("--brief", a.brief, "Hide ok and info findings in the text report");
  return facts_opt;
}

// For schedulers and monitoring: one line, the severity that fails, a metrics file (docs/slurm.md,
// metrics.md).
void add_scheduler_options(CLI::App& sub, CheckArgs& a) {
  sub.add_flag("--summary", a.summary,
               "Print one line (verdict, counts of failing, warning and passing findings, the worst finding) "
               "instead of the report: a Slurm drain reason");
  sub.add_option_function<std::string>(
         "--fail-on",
         [&a](const std::string& v) {
           a.fail_on = v == "fail" ? report::FailOn::fail : report::FailOn::warn;
         },
         "Lowest verdict that exits non-zero: warn (default: 1 on warn, 2 on fail) or fail (a warning exits "
         "0)")
      ->check(one_of({"warn", "fail"}));
  sub.add_option("--metrics", a.metrics_file,
                 "Also write the figures as Prometheus text to FILE, atomically (node_exporter's textfile "
                 "collector); on a cluster, rank 0 writes every node's")
      ->type_name("FILE");
}

void add_cluster_options(CLI::App& sub, CheckArgs& a) {
  auto& c = a.cluster;
  sub.add_option("--nnodes", c.nnodes, "Nodes in the job: check all of them together (run on every node)")
      ->check(node_count());
  sub.add_option("--node-rank,--node_rank", c.node_rank, "This node's rank, 0 .. nnodes-1 (0 runs the store)")
      ->check(CLI::Range(0, 1 << 20));
  auto* master = sub.add_option("--master", c.master,
                                "Where the nodes meet: HOST:PORT (node rank 0's) or etcd://HOST:PORT")
                     ->check(master_address());
  add_torchrun_master(sub, master, c.master);
  sub.add_option("--token", c.token, "Job token (else --token-file or DISTDOCTOR_TOKEN)");
  sub.add_option("--token-file", c.token_file, "Read the job token from this file")->type_name("FILE");
  sub.add_option("--deadline", c.timeout_s, "Seconds for the whole cluster run (default 60)")
      ->check(seconds_in(1.0, 86400.0));
  sub.add_option("--timeout", c.timeout_s)
      ->check(seconds_in(1.0, 86400.0))
      ->group(kOldNamesGroup);  // --deadline's old name
  sub.add_flag("--listen-all", c.listen_all,
               "Node rank 0: the store listens on every address (default: only on --master's address)");
  sub.add_flag("--mesh-bandwidth", c.mesh_bandwidth,
               "Also measure TCP bandwidth between every pair of nodes");
  sub.add_flag("--local", a.local_only,
               "Check this node only, even under a launcher (srun, mpirun, torchrun)");
}

void add_collective_options(CLI::App& sub, CheckArgs& a, CLI::Option* facts_opt) {
  sub.add_flag(
         "--collectives", a.collectives,
         "Also run a short collective pass on this node (every collective once, data verified, one "
         "bandwidth point; a few seconds); with --nnodes or a launcher, across every rank of every node")
      ->excludes(facts_opt);
  sub.add_option("--engine", a.engine,
                 "--collectives engine: nccl or gloo (default nccl when GPUs are "
                 "visible and NCCL loads, else gloo)")
      ->check(one_of({"nccl", "gloo"}));
  sub.add_option("--init-timeout", a.init_timeout_s, "--collectives: seconds for communicator setup")
      ->check(seconds_in(1.0, 600.0));
  sub.add_flag("--timing", a.timing,
               "--collectives: where the time goes (probe, worker start, CUDA/NCCL/Gloo init, allocation, "
               "the collectives, teardown); always in the JSON under measurements.collectives.timing");
}

// --collectives in cluster mode: the cross-node pass's hooks (plan on the leader, run on every node).
cluster::CrossNodeHooks cross_node_hooks(const CheckArgs& a, const probe::NodeFacts& facts,
                                         const probe::SelfProcess& self, int self_rank,
                                         const std::string& node_label) {
  comm::CrossNodeSettings s;
  s.engine = a.engine;
  s.nccl_lib = a.nccl_lib;
  s.init_timeout = std::chrono::milliseconds(int64_t(a.init_timeout_s * 1000));
  cluster::CrossNodeHooks h;
  h.plan = [s](const rules::ClusterView& view, rules::CrossNodeView& xn) {
    return comm::cross_node_plan(view, xn, s);
  };
  h.budget = [](const nlohmann::json& plan) { return comm::cross_node_phase_budget(plan); };
  h.run = [s, &facts, &self, self_rank, node_label](const nlohmann::json& plan, const std::string& url,
                                                    const std::string& token) {
    comm::CrossNodeSettings run_s = s;
    run_s.store_url = url;
    run_s.store_token = token;
    return comm::cross_node_run(plan, self_rank, node_label, run_s, {facts, probe::tool_env(), self});
  };
  h.release = comm::cross_node_release_ranks;
  h.max_budget = s.init_timeout * 2 + std::chrono::seconds(90);
  return h;
}

// The multi-node flow's outcome printed as --json, --summary, text and --metrics want it (report/emit.h).
int emit_cluster(const CheckArgs& a, Result<cluster::ClusterCheckOutcome> out) {
  if (!out) {
    std::cerr << "distdoctor check: " << shown(out.error().message()) << "\n";
    return report::kExitCannotRun;
  }
  if (!out->report) return report::kExitPass;  // rank 0 prints the verdict this rank shares
  return report::emit_check_report(*out->report, emit_options(a, probe::host_name()), std::cout, std::cerr);
}

// What the multi-node flow says while it runs (cluster::ClusterCheckSinks), printed here on stderr.
cluster::ClusterCheckSinks cluster_sinks() {
  return {progress_printer("check"), progress_printer(""), progress_printer("store"),
          [](const std::string& text) { std::cerr << text << std::flush; }, ::isatty(STDERR_FILENO) == 1};
}

// Multi-node: plan who this process is, probe (everything on the facts publisher, identity elsewhere).
int run_cluster(const CheckArgs& a, const probe::EnvMap& env) {
  auto plan = cluster::plan_cluster_check(a, env);
  if (!plan) {
    std::cerr << "distdoctor check: " << plan.error().message() << "\n";
    return report::kExitCannotRun;
  }
  probe::ProbeOptions po;
  po.nccl_lib = a.nccl_lib;
  po.identity_only = !plan->publishes_facts();
  po.cuda_init = a.collectives && plan->publishes_facts();  // the GPUs the pass will use
  const probe::NodeFacts facts = probe::collect_node_facts(po, env);
  if (!a.collectives) return emit_cluster(a, cluster::run_cluster_check(a, *plan, facts, cluster_sinks()));
  const probe::SelfProcess self = probe::read_self_process();
  const std::string label = plan->spec.node_rank >= 0
                                ? facts.host.hostname + "(" + std::to_string(plan->spec.node_rank) + ")"
                                : facts.host.hostname;
  const cluster::CrossNodeHooks hooks = cross_node_hooks(a, facts, self, plan->spec.rank, label);
  return emit_cluster(a, cluster::run_cluster_check(a, *plan, facts, cluster_sinks(), &hooks));
}

// --facts FILE: a bare NodeFacts or a whole report with a "facts" member.
bool load_facts(const std::string& path, probe::NodeFacts& facts) {
  auto text = probe::read_regular_file(path);  // a FIFO or device is refused, never waited on
  if (!text) {
    std::cerr << "distdoctor check: --facts: " << text.error().message() << "\n";
    return false;
  }
  if (text->truncated) {
    std::cerr << "distdoctor check: --facts: " << path << " is larger than " << (probe::kMaxConfigBytes >> 20)
              << " MiB: not a facts file\n";
    return false;
  }
  auto loaded = probe::facts_from_text(text->text);
  if (!loaded) {
    std::cerr << "distdoctor check: " << path << " is not a facts file: " << loaded.error().message() << "\n";
    return false;
  }
  facts = std::move(*loaded);
  return true;
}

int run_node(const CheckArgs& a, const probe::EnvMap& env) {
  probe::NodeFacts facts;
  const auto probe_start = std::chrono::steady_clock::now();
  if (!a.facts_file.empty()) {
    if (!load_facts(a.facts_file, facts)) return report::kExitCannotRun;
  } else {
    // --collectives leaves cuInit to the pass's workers (here it would cost 0.1-0.5 s before they start);
    // only a failed pass brings it back below, so a broken CUDA driver is still named by its own finding.
    probe::ProbeOptions po;
    po.nccl_lib = a.nccl_lib;
    po.cuda_init = a.cuda_init;
    facts = probe::collect_node_facts(po, env);
  }
  const double probe_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - probe_start).count();
  report::Report pass;
  const bool pass_ok = a.collectives && add_collectives(pass, facts, a, probe_s);
  if (a.collectives && !pass_ok && a.facts_file.empty() && !facts.cuda.init_probed)
    facts.cuda = probe::collect_cuda_facts(env);
  rules::CheckOptions co;
  co.nproc_per_node = a.nproc_per_node;
  co.collective_pass = a.collectives;
  co.collectives_passed = pass_ok;
  report::Report r;
  r.title = "distdoctor check — node " + facts.host.hostname;
  r.findings = rules::run_node_rules(facts, co);
  if (a.collectives) {
    r.notes = std::move(pass.notes);
    for (auto& x : pass.findings) r.add(std::move(x));
    r.measurements = std::move(pass.measurements);
  } else if (a.facts_file.empty()) {
    r.notes.push_back("collectives not run: add --collectives for a short NCCL/Gloo pass on this node");
  }
  r.facts = facts;
  return report::emit_check_report(r, emit_options(a, facts.host.hostname), std::cout, std::cerr);
}
}  // namespace

Runner setup_check(CLI::App& sub) {
  auto a = std::make_shared<CheckArgs>();
  CLI::Option* facts_opt = add_node_options(sub, *a);
  add_cluster_options(sub, *a);
  add_collective_options(sub, *a, facts_opt);
  add_scheduler_options(sub, *a);
  return [a]() -> int {
    const probe::EnvMap env = probe::read_environment();  // read once, for the launcher and the probes
    if (a->facts_file.empty() && !a->local_only &&
        cluster::cluster_requested(a->cluster, cluster::detect_launcher(env)))
      return run_cluster(*a, env);
    return run_node(*a, env);
  };
}

}  // namespace dd::cli
