// run_launch (see launch_flow.h).
#include "launch/launch_flow.h"

#include <fmt/format.h>
#include <unistd.h>

#include <random>

#include "cluster/advertise.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "launch/attempt.h"
#include "launch/attempt_file.h"
#include "launch/failure_report.h"
#include "launch/lateness_outputs.h"
#include "launch/launch_join.h"
#include "launch/launcher_convention.h"
#include "launch/preflight.h"
#include "launch/run_dir.h"
#include "probe/path_lookup.h"
#include "rules/engine_choice.h"

namespace dd::launch {

namespace {

LaunchOutcome launch_cannot_run(const std::string& msg) {
  return {.exit_code = report::kExitCannotRun, .cannot_run = msg};
}

std::string make_job_id() {
  std::random_device rd;
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("{:04}{:02}{:02}-{:02}{:02}{:02}-{:04x}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, rd() & 0xffff);
}

Result<cluster::ClusterPlan> plan_nodes(const LaunchArgs& a, const probe::EnvMap& env) {
  cluster::LauncherInfo li = cluster::detect_launcher(env);
  if (!cluster::cluster_requested(a.cluster, li)) {
    cluster::ClusterPlan one;
    one.spec.world = 1;
    one.spec.node_rank = 0;
    one.spec.notes.push_back("one node (no --nnodes, no multi-node launcher)");
    return one;
  }
  auto plan = cluster::plan_cluster(a.cluster, env);
  if (!plan) return plan.error();
  if (!plan->spec.by_hand && plan->spec.local_world > 1)
    return Error{
        fmt::format("{} started {} launch processes on this node; run one per node (srun "
                    "--ntasks-per-node=1, mpirun --npernode 1) and let --nproc-per-node start the workers",
                    plan->launcher.launcher, plan->spec.local_world)};
  plan->spec.node_rank = plan->spec.rank;
  return plan;
}

JobSettings wanted_settings(const LaunchArgs& a, const cluster::ClusterPlan& plan,
                            const probe::NodeFacts& facts) {
  JobSettings s;
  s.job_id = !a.job_id.empty() ? a.job_id : !plan.spec.job_id.empty() ? plan.spec.job_id : make_job_id();
  s.run_id = make_run_id();
  s.command_digest = command_digest(a.command);
  s.max_restarts = a.max_restarts;
  s.hang_timeout_s = a.hang_timeout_s;
  s.grace_s = a.grace_s;
  s.job_port = a.job_port;
  s.bind_gpu = a.bind_gpu;
  s.preflight = !a.no_preflight;
  s.flight_recorder = !a.no_flight_recorder;
  s.straggler_interval_s = s.flight_recorder ? a.straggler_interval_s : 0;
  s.conventions = a.conventions;
  s.nnodes = plan.spec.world;
  std::string host = a.cluster.master.substr(0, a.cluster.master.rfind(':'));
  if (plan.spec.world == 1)
    s.master_addr = "127.0.0.1";
  else if (!host.empty() && host.rfind("etcd://", 0) != 0 && host != "0.0.0.0")
    s.master_addr = host;
  else
    s.master_addr = cluster::pick_advertise_addr(facts);
  return s;
}

// The preflight's verdict: the report that stops the launch (printed on stdout, exit 2), or nothing (its
// warnings shown through in.show_warnings).
std::optional<report::Report> preflight_stops(const LaunchInputs& in, const JoinedNodes& joined,
                                              const cluster::ClusterPlan& plan, int nproc,
                                              nlohmann::json& extra) {
  PreflightResult pf = run_preflight(joined, in.args, plan, in.facts, nproc);
  extra["preflight"] = report::render_json(pf.report);
  if (pf.stop) {
    pf.report.notes.insert(pf.report.notes.begin(),
                           "the launch was stopped before any worker started (--no-preflight skips this)");
    return std::move(pf.report);
  }
  if (pf.report.verdict() == report::Verdict::warn && in.show_warnings) in.show_warnings(pf.report);
  return std::nullopt;
}

}  // namespace

Result<int> resolve_nproc(const std::string& v, const probe::NodeFacts& facts) {
  if (v == "gpu") {
    int n = rules::visible_gpu_count(facts);
    if (n < 1) return Error{"--nproc-per-node gpu: no GPU is visible on this node"};
    return n;
  }
  try {
    size_t used = 0;
    int n = std::stoi(v, &used);
    if (used == v.size() && n >= 1 && n <= 4096) return n;
  } catch (const std::exception&) {
  }
  return Error{fmt::format("--nproc-per-node must be a count (1-4096) or \"gpu\", not \"{}\"", v)};
}

namespace {

// This node's member record for the rendezvous.
NodeHello this_node(const LaunchInputs& in, const cluster::ClusterPlan& plan, int nproc) {
  NodeHello me;
  me.node_rank = plan.spec.node_rank;
  me.host = in.facts.host.hostname;
  me.addr = plan.spec.world == 1 ? "127.0.0.1" : cluster::pick_advertise_addr(in.facts);
  me.nproc = nproc;
  me.gpu_ids = rules::visible_gpu_ids(in.facts);
  me.env = env_for_compare(in.env);
  me.pid = getpid();
  me.nnodes = plan.spec.world;
  me.command_digest = command_digest(in.args.command);
  return me;
}

// Every attempt, restarts included, each record saved beside its logs (for `distdoctor logs RUN_DIR`; a
// failure to write it costs only that, the report says everything).
std::vector<AttemptRecord> run_attempts(const LaunchInputs& in, const AttemptSetup& setup) {
  const JoinedNodes& joined = setup.joined;
  std::vector<AttemptRecord> attempts;
  for (int attempt = 0;; ++attempt) {
    attempts.push_back(run_attempt(setup, attempt));
    if (const std::string why = save_attempt_record(setup.run_dir, attempts.back()); !why.empty())
      say(in.progress, ProgressKind::warning, why);
    if (const std::string why =
            save_attempt_lateness(setup.run_dir, in.args.metrics_file, joined.job.job_id, attempts.back());
        !why.empty())
      say(in.progress, ProgressKind::warning, why);
    const StopEvent& stop = attempts.back().stop;
    bool retry = stop.cause == StopCause::worker_failed || stop.cause == StopCause::hang ||
                 stop.cause == StopCause::scheduler_failed;
    if (!retry || attempt >= joined.job.max_restarts) break;
    say(in.progress, ProgressKind::progress,
        fmt::format("attempt {} failed ({}); restarting the job on every node ({} of {})", attempt,
                    stop_cause_name(stop.cause), attempt + 1, joined.job.max_restarts));
  }
  return attempts;
}

// The environment the workers start from: the launcher's, less the job token (workers run the user's code).
std::vector<std::string> worker_base_env(const probe::SelfProcess& self) {
  std::vector<std::string> base_env;
  for (const auto& e : self.environment)
    if (e.rfind("DISTDOCTOR_TOKEN=", 0) != 0 && e.rfind("DD_STORE_TOKEN=", 0) != 0) base_env.push_back(e);
  return base_env;
}

// The report of a launch that never reached its workers: the nodes did not meet.
LaunchOutcome join_failed(const JoinedNodes& joined) {
  report::Report r;
  r.title = "distdoctor launch — could not meet the other nodes";
  r.notes = joined.notes;
  r.add(*joined.failure);
  return {.exit_code = report::kExitCannotRun, .report = std::move(r)};
}

// " (MindSpore's scheduler: node0.scheduler.log)" when a convention on in the job has a companion process.
std::string companion_note(const JobSettings& job) {
  const CompanionProcess* c = companion_of({.opted_in = opted_in(job)});
  return c ? fmt::format(" ({}: node0.{}.log)", c->who, c->role) : "";
}

// The report this node prints: the attempts' account, the job and where its logs are, the exit code.
LaunchOutcome launch_outcome(const LaunchInputs& in, const JoinedNodes& joined, const std::string& run_dir,
                             const std::vector<AttemptRecord>& attempts, nlohmann::json extra) {
  const LaunchArgs& a = in.args;
  report::Report r = build_launch_report(attempts);
  r.notes.insert(
      r.notes.begin(),
      {fmt::format("job {}: {} node(s), node rank {} of them is this one ({})", joined.job.job_id,
                   joined.nnodes, joined.node_rank, in.facts.host.hostname),
       fmt::format(
           "logs: {}/{}/nodeN.rankR.log{}{}{}", run_dir, attempts.back().attempt,
           attempts.size() > 1 ? fmt::format(" (earlier attempts: {}/0/ ...)", run_dir) : "",
           companion_note(joined.job),
           run_dir == a.log_dir + "/" + joined.job.job_id
               ? ""
               : fmt::format(" ({}/{} holds an earlier run of this job id)", a.log_dir, joined.job.job_id))});
  for (const auto& n : joined.notes) r.notes.push_back(n);
  if (attempts.back().stop_latency_s >= 0)
    r.notes.push_back(fmt::format("this node stopped its workers {:.2f} s after it learned of the stop",
                                  attempts.back().stop_latency_s));
  extra["attempts"] = attempts;
  const int rc = launch_exit_code(attempts.back());
  const std::optional<int> worker_rc = worker_exit_code(attempts.back());
  if (worker_rc) extra["worker_exit_code"] = *worker_rc;
  if (rc == kExitJobFailed && worker_rc)  // the worker's status is the job's, never the launcher's exit code
    r.notes.push_back(
        fmt::format("the failing worker's exit code: {}; distdoctor launch exits {} (the job failed)",
                    *worker_rc, kExitJobFailed));
  return {.exit_code = rc, .report = std::move(r), .extra = std::move(extra)};
}

// After the nodes met and the preflight passed: the attempts and the report this node prints.
LaunchOutcome launch_job(const LaunchInputs& in, const JoinedNodes& joined, nlohmann::json extra) {
  const LaunchArgs& a = in.args;
  if (a.command.empty()) return launch_cannot_run("no command to run (give it after --)");
  const std::string path_env = probe::env_get(in.env, "PATH");
  const std::string program = probe::find_on_path(a.command.front(), path_env);
  const std::vector<std::string> base_env = worker_base_env(in.self);
  // A node rank 0 without run ids (an older distdoctor) gives none: the job id stands in for it.
  auto run_dir = claim_run_dir(a.log_dir, joined.job.job_id,
                               joined.job.run_id.empty() ? joined.job.job_id : joined.job.run_id);
  if (!run_dir) return launch_cannot_run(run_dir.error().message());
  AttemptSetup setup{a,        joined,   in.facts,
                     base_env, *run_dir, program.empty() ? a.command.front() : program,
                     path_env, in.guard, in.worker_fd};
  setup.status = in.status;
  setup.progress = in.progress;
  const std::vector<AttemptRecord> attempts = run_attempts(in, setup);
  return launch_outcome(in, joined, *run_dir, attempts, std::move(extra));
}

}  // namespace

LaunchOutcome run_launch(const LaunchInputs& in) {
  const LaunchArgs& a = in.args;
  auto nproc = resolve_nproc(a.nproc, in.facts);
  if (!nproc) return launch_cannot_run(nproc.error().message());
  if (auto problem = log_dir_problem(a.log_dir); !problem.empty()) return launch_cannot_run(problem);
  auto plan = plan_nodes(a, in.env);
  if (!plan) return launch_cannot_run(plan.error().message());
  JoinInput ji{
      a, *plan, in.facts, in.self, this_node(in, *plan, *nproc), wanted_settings(a, *plan, in.facts)};
  ji.progress = in.progress;
  ji.store_log = in.store_log;
  ji.show_commands = in.show_commands;
  ji.commands_on_terminal = in.commands_on_terminal;
  JoinedNodes joined = join_nodes(ji);
  if (joined.failure) return join_failed(joined);
  nlohmann::json extra{{"worker_exit_code", nullptr}};  // no worker ran, until one does
  if (joined.job.preflight)
    if (auto stop = preflight_stops(in, joined, *plan, *nproc, extra))
      return {.exit_code = report::kExitFail, .report = std::move(*stop), .extra = std::move(extra)};
  return launch_job(in, joined, std::move(extra));
}

}  // namespace dd::launch
