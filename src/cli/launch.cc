// `distdoctor launch [options] -- CMD ARGS...`: parse the options once (launch::LaunchArgs), start the orphan
// guard before anything else, read this node's facts, and hand over to launch::run_launch.
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/command.h"
#include "cli/flag_values.h"
#include "cli/print_report.h"
#include "cli/progress_printer.h"
#include "cli/request_limits.h"
#include "cli/torchrun_flags.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "launch/launch_args.h"
#include "launch/launch_flow.h"
#include "launch/launcher_convention.h"
#include "launch/status_line.h"
#include "launch/status_text.h"
#include "launch/stop_signals.h"
#include "probe/collect.h"
#include "probe/env_probe.h"
#include "probe/self_probe.h"
#include "probe/tool_env.h"
#include "process/orphan_guard.h"
#include "report/report.h"

namespace dd::cli {

namespace {

void add_launch_job_options(CLI::App& sub, launch::LaunchArgs& a) {
  sub.add_option("--nproc-per-node,--nproc_per_node", a.nproc,
                 "Workers on this node: a count, or \"gpu\" for one per visible GPU")
      ->check(worker_count());
  sub.add_option("--log-dir,--log_dir", a.log_dir,
                 "Where each worker's log goes: DIR/JOB/ATTEMPT/nodeN.rankR.log")
      ->capture_default_str()
      ->type_name("DIR");
  sub.add_option("--job-id", a.job_id, "Job name in the log path and TORCHELASTIC_RUN_ID (default: made up)")
      ->check(job_name());
  sub.add_option("--tee", a.tee,
                 "Whose output the terminal shows, each line prefixed [rankN]: (the rank's log file keeps it "
                 "unprefixed): all (default), a rank (0: rank 0 only), none")
      ->check(rank_or({"all", "none"}));
  sub.add_option("--max-restarts,--max_restarts", a.max_restarts,
                 "Restart the whole job up to K times after a failure")
      ->check(CLI::Range(0, 1000));
  sub.add_option(
         "--hang-timeout", a.hang_timeout_s,
         "Report and stop a job whose workers print nothing for S seconds (a watchdog timeout or NCCL error "
         "a worker prints stops it at once)")
      ->check(seconds_in(0.0, 86400.0 * 30));
  sub.add_option("--grace", a.grace_s,
                 "Seconds between SIGTERM and SIGKILL when stopping workers (default 5)")
      ->check(seconds_in(0.0, 3600.0));
  sub.add_option("--job-port", a.job_port,
                 "Fixed MASTER_PORT for the job (default: a free port on node rank 0)")
      ->check(CLI::Range(1, 65535));
  sub.add_flag("--no-preflight", a.no_preflight, "Start the workers without the preflight checks");
  sub.add_flag(
      "--no-flight-recorder", a.no_flight_recorder,
      "Leave PyTorch's Flight Recorder and the stack hook (faulthandler on SIGUSR2) off in the workers");
  sub.add_option(
         "--straggler-interval", a.straggler_interval_s,
         "Every S seconds, ask each worker's Flight Recorder for a snapshot and name a rank the others "
         "wait for (default 30; 0: only at the end)")
      ->check(seconds_in(0.0, 86400.0));
  sub.add_option("--metrics", a.metrics_file,
                 "Also write each rank's lateness in collectives and the others' wait for it as Prometheus "
                 "text to FILE, atomically (node_exporter's textfile collector): at each straggler check "
                 "(this node's ranks) and at the end (every node's)")
      ->type_name("FILE");
  auto* bind =
      sub.add_flag("--bind-gpu", a.bind_gpu, "Give each worker one GPU through CUDA_VISIBLE_DEVICES");
  for (const launch::LauncherConvention* c : launch::launcher_conventions()) {  // the opt-in ones' flags
    if (c->flag.empty()) continue;
    auto* flag = sub.add_flag_callback(
        std::string(c->flag), [&a, name = std::string(c->name)] { a.conventions.push_back(name); },
        std::string(c->flag_help));
    if (c->every_gpu) flag->excludes(bind);
  }
  sub.add_flag("--json", a.json, "Print the final report as JSON on stdout (worker lines go to stderr)");
  sub.add_flag(
      "-v,--verbose", a.verbose,
      "Print every detail of the final report (each rank's state and whole stacks; --json holds them "
      "always)");
  sub.add_option("--nccl-lib", a.nccl_lib, "The libnccl.so the job loads, for the preflight")
      ->type_name("FILE");
}

void add_launch_node_options(CLI::App& sub, launch::LaunchArgs& a) {
  auto& c = a.cluster;
  c.timeout_s = 300;
  sub.add_option("--nnodes", c.nnodes, "Nodes in the job (run launch on each; the first prints the command)")
      ->check(node_count());
  sub.add_option("--node-rank,--node_rank", c.node_rank, "This node's rank, 0 .. nnodes-1 (0 runs the store)")
      ->check(CLI::Range(0, 1 << 20));
  auto* master = sub.add_option("--master", c.master,
                                "Where the nodes meet: HOST:PORT (node rank 0's) or etcd://HOST:PORT")
                     ->check(master_address());
  add_torchrun_master(sub, master, c.master,
                      "on one node launch picks a free MASTER_PORT for the workers, --job-port fixes it");
  sub.add_option("--token", c.token, "Job token (prefer --token-file or DISTDOCTOR_TOKEN: argv is public)");
  sub.add_option("--token-file", c.token_file, "Read the job token from this file")->type_name("FILE");
  sub.add_flag("--listen-all", c.listen_all,
               "Node rank 0: the store listens on every address (default: only on --master's address)");
  sub.add_option("--join-timeout", c.timeout_s,
                 "Seconds for the nodes to meet and pass the preflight (default 300)")
      ->check(seconds_in(1.0, 86400.0));
  sub.add_option("--timeout", c.timeout_s)
      ->check(seconds_in(1.0, 86400.0))
      ->group(kOldNamesGroup);  // its old name
}

int run(const launch::LaunchArgs& parsed) {
  launch::LaunchArgs a = parsed;
  const TrailingCommand& tc = trailing_command();
  a.command = tc.words;
  // The live status line: on a terminal only (a pipe or a file gets none), never with --json.
  a.status_line =
      launch::status_line_wanted(a.json, ::isatty(STDERR_FILENO) == 1, probe::tool_env().status_line);
  if (a.command.empty()) {
    std::cerr << (a.cluster.node_rank > 0
                      ? "distdoctor launch: give the job's command after --, the same as node rank 0's (the "
                        "command node rank 0 printed ends with it): each node runs its own command line\n"
                      : "distdoctor launch: give the command to run after --, e.g. distdoctor launch "
                        "--nproc-per-node 2 -- python train.py\n");
    return report::kExitCannotRun;
  }
  // First: the guard must be forked before any thread exists, and signals counted before workers start.
  const probe::ArgumentArea args = probe::read_argument_area();  // the guard drops our command line
  auto guard = process::OrphanGuard::start(args.start, args.size);
  if (!guard) {
    std::cerr << "distdoctor launch: " << guard.error().message() << "\n";
    return report::kExitCannotRun;
  }
  launch::install_stop_signals();
  // Orphaned children of workers come back to us, so stopping a worker's group can reap them at once.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const probe::EnvMap env = probe::read_environment();
  probe::ProbeOptions po;
  po.nccl_lib = a.nccl_lib;
  const probe::NodeFacts facts = probe::collect_node_facts(po, env);
  const int workers = a.nproc == "gpu" ? 0 : std::atoi(a.nproc.c_str());  // validated at parse time
  const std::string too_many = workers_beyond_node("--nproc-per-node", workers, facts);
  if (!too_many.empty()) {
    (*guard)->dismiss();
    std::cerr << "distdoctor launch: " << too_many << "\n";
    return report::kExitCannotRun;
  }
  const probe::SelfProcess self = probe::read_self_process();
  launch::LaunchInputs in{a, facts, self, env, guard->get()};
  launch::StatusLine status(a.status_line ? STDERR_FILENO : -1);  // erased before every other line
  in.status = &status;
  in.progress = progress_printer("launch", [&status] { status.erase(); });
  in.store_log = progress_printer("store", [&status] { status.erase(); });
  in.show_commands = [](const std::string& text) { std::cerr << text << std::flush; };
  in.commands_on_terminal = ::isatty(STDERR_FILENO) == 1;
  // One verdict per launch, the final report's: the preflight's warnings are shown without one.
  in.show_warnings = [](const report::Report& r) {
    show_report(r, {.brief = true, .verdict_line = false}, std::cerr);
  };
  in.worker_fd = a.json ? STDERR_FILENO : STDOUT_FILENO;  // --json keeps stdout for the report
  launch::LaunchOutcome out = launch::run_launch(in);
  (*guard)->dismiss();
  if (!out.cannot_run.empty()) std::cerr << "distdoctor launch: " << shown(out.cannot_run) << "\n";
  if (out.report)
    show_report(*out.report, {.json = a.json,
                              .verbose = a.verbose,
                              .envelope = {.command = "launch", .exit_code = out.exit_code},
                              .extra = std::move(out.extra)});
  return out.exit_code;
}

}  // namespace

Runner setup_launch(CLI::App& sub) {
  auto a = std::make_shared<launch::LaunchArgs>();
  add_launch_job_options(sub, *a);
  add_launch_node_options(sub, *a);
  sub.footer(
      "CMD ARGS: the job, after --. Workers get RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT and "
      "the rest of torchrun's and Paddle's variables. Exit code: 0 when all succeed, 4 when a worker fails "
      "(its own exit code is in the report and in --json's worker_exit_code), 124 for a hang, 128+signal "
      "when "
      "launch is interrupted, 2 when the preflight stops the job or a node is lost, 3 when launch cannot "
      "start it.");
  return [a] { return run(*a); };
}

}  // namespace dd::cli
