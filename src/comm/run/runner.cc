// run_collectives: set up the run (layout, store, private directory, plan), start and watch the workers,
// then put the results together and name what went wrong.
#include "comm/run/runner.h"

#include "comm/run/comm_finding.h"
#include "comm/run/gone_watch.h"
#include "comm/run/op_deadline.h"
#include "comm/run/run_dir.h"
#include "comm/run/run_findings.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "probe/fs.h"
#include "probe/host_memory.h"
#include "probe/proc_probe.h"
#include "process/orphan_guard.h"
#include "rendezvous/open_store.h"
#include "report/comm_ids.h"

namespace dd::comm {

namespace {

// The worker's speed probe may run past the init deadline by this much (op_deadline.h: at least 5 s).
constexpr std::chrono::milliseconds kSpeedProbeAllowance{5000};
// The longest a rank may sit between one op's result and the next op's start (it only sends two events).
constexpr std::chrono::milliseconds kBetweenOps{10000};
// How often the supervisor reads each live worker's /proc state (a stopped worker is named within about
// StuckWatch::kStoppedFor plus this).
constexpr std::chrono::milliseconds kProcSampleEvery{250};

// One /proc sample of every worker (a reaped one as unreadable).
void sample_workers(const process::WorkerSupervisor& sup, RunWatch& watch) {
  for (size_t w = 0; w < sup.workers().size(); ++w) {
    const auto& ws = sup.workers()[w];
    watch.on_proc(int(w), ws.pid, ws.exited ? probe::ProcSnapshot{} : probe::read_proc(ws.pid));
  }
}

// The whole run's deadline: communicator init, every op's own deadline, and 3 s to start and stop. An op
// whose deadline the worker measures counts with its last-resort bound (RunWatch's per-op watchdog ends a
// stalled run long before).
std::chrono::milliseconds run_budget(const RunOptions& opt) {
  auto total = opt.init_timeout + kSpeedProbeAllowance + std::chrono::milliseconds(3000);
  for (const auto& o : opt.ops) total += o.measured_deadline ? backstop_deadline(o) : o.timeout;
  return total;
}

// Writes the plan the workers read: in the run's private folder, new, never through a link, and a failed
// write (a full disk) is the run's error rather than workers that read half a plan. Its path, or "" when it
// could not be written (the finding added to out).
std::string write_plan(RunOutcome& out, const Plan& plan, const std::string& dir) {
  const std::string plan_path = dir + "/plan.json";
  if (auto written = probe::local_fs().write_atomically(plan_path, json_text(plan_to_json(plan)),
                                                        {.mode = 0600, .symlinks = Symlinks::refuse});
      !written) {
    out.findings.push_back(comm_failure(report::comm_id::kError,
                                        "cannot write the run's plan for its workers",
                                        {written.error().message()}, ""));
    return "";
  }
  return plan_path;
}

// After the watch: every worker's state when the run stopped, then the workers stopped, the NCCL logs read,
// each op's outcome and the failures named.
void finish_run(RunOutcome& out, RunRecord& rec, process::WorkerSupervisor& sup, RunWatch& watch,
                const std::string& dir, SupervisorTimes& times) {
  if (watch.all_left()) sup.let_exit();
  times.watched = rec.stopped_at = rendezvous::Clock::now();
  sample_workers(sup, watch);  // whatever ended the run: a worker that cannot run is its cause
  watch.settle_stuck();
  for (const auto& w : sup.workers()) rec.alive_at_stop.push_back(!w.exited);
  sup.stop_all();
  out.library = watch.library();
  if (rec.opt.engine == rules::EngineKind::nccl && rec.opt.capture_nccl_log)
    out.nccl_log = parse_nccl_log_dir(dir);
  bool all_complete = aggregate_ops(out, rec);
  name_failures(out, rec);
  out.ok = out.findings.empty() && all_complete;
  times.end = rendezvous::Clock::now();
  out.timing = make_run_timing(times, watch, rec.layout);
}

// Starts the workers and watches them until they end, one fails (then the others are stopped), or the
// run's deadline passes. Fills the outcome's ops and findings.
void supervise(RunOutcome& out, const RunOptions& opt, const RunLayout& layout, const NodeContext& node,
               const std::string& dir, process::OrphanGuard* guard, SupervisorTimes& times,
               const OnOpDone& on_done) {
  const rendezvous::Clock::time_point t0 = times.begin;
  const probe::NodeFacts& facts = node.facts;
  Plan plan = make_plan(opt, layout, facts, dir);
  const std::string plan_path = write_plan(out, plan, dir);
  if (plan_path.empty()) return;
  std::vector<process::WorkerSpec> specs =
      worker_specs(opt, layout, facts, dir, plan_path, node.self.executable);
  out.ops.resize(opt.ops.size());
  for (size_t i = 0; i < opt.ops.size(); ++i) out.ops[i].req = opt.ops[i];
  process::WorkerSupervisor sup;
  const int64_t oom_kills_at_start = probe::read_oom_kills(*probe::make_real_fs());  // a SIGKILL's cause
  if (auto s = sup.start(specs, node.self.environment); !s) {
    out.findings.push_back(
        comm_failure(report::comm_id::kError, "cannot start worker processes", {s.error().message()}, ""));
    return;
  }
  if (guard)
    for (const auto& w : sup.workers()) guard->watch_group(w.pid);
  times.started = rendezvous::Clock::now();
  RunWatch watch(layout.world, layout.groups, sup, opt.ops);
  watch.set_watchdogs(
      times.started + opt.init_timeout + kSpeedProbeAllowance + std::chrono::milliseconds(3000), kBetweenOps);
  RunRecord rec{opt, layout, watch, sup, specs, facts};
  rec.total = run_budget(opt);
  rec.oom_kills_before = oom_kills_at_start;
  std::optional<GoneWatch> gone;  // a shared store: the cluster leader may say another node's ranks are gone
  if (!opt.store_url.empty()) gone.emplace(opt.store_url, opt.store_token, opt.store_prefix);
  auto next_sample = times.started;
  size_t told = 0;  // ops told to on_done, in order: each once every rank of this node reported it
  auto tell_done = [&] {
    for (; on_done && told < opt.ops.size(); ++told) {
      auto it = watch.results().find(int(told));
      if (it == watch.results().end() || it->second.size() != layout.local.size()) return;
      on_done(complete_op(opt.ops[told], it->second, layout.world), layout.world, watch.library());
    }
  };
  rec.finished = sup.watch(
      t0 + rec.total,
      [&](int w, const std::string& line) {
        watch.on_line(w, line);
        tell_done();
      },
      [&](int w) { watch.on_exit(w); },
      [&] {
        if (auto now = rendezvous::Clock::now(); now >= next_sample) {
          sample_workers(sup, watch);
          next_sample = now + kProcSampleEvery;
        }
        // Once every rank said "left", only the workers' process exits remain (a GPU worker's CUDA teardown
        // by the kernel takes about 0.5 s): the report does not wait for them.
        return watch.should_stop() || (gone && gone->gone()) || watch.all_left();
      });
  if (gone && gone->gone()) rec.peers_gone = gone->what();
  finish_run(out, rec, sup, watch, dir, times);
}

}  // namespace

RunOutcome run_collectives(const RunOptions& opt, const NodeContext& node, const OnOpDone& on_done) {
  const probe::NodeFacts& facts = node.facts;
  auto t0 = rendezvous::Clock::now();
  RunOutcome out;
  const RunLayout layout = run_layout(opt, facts);
  out.world = layout.world;
  if (auto problem = layout_problem(opt, layout, facts)) {
    out.findings.push_back(std::move(*problem));
    return out;
  }
  std::optional<rendezvous::OpenedStore> served;  // kept alive until the run ends
  if (opt.store_master && !opt.store_url.empty()) {
    auto o = rendezvous::open_store(opt.store_url, opt.store_token, rendezvous::StoreRole::kMaster,
                                    t0 + opt.init_timeout, {.server_log = node.store_log});
    if (!o) {
      out.findings.push_back(comm_failure(report::comm_id::kError, "cannot serve the store " + opt.store_url,
                                          {o.error().message()},
                                          "Pick a free port on an address of this node."));
      return out;
    }
    served = std::move(*o);
  }
  auto dir = RunDir::create(node.tool.keep_tmp);  // removed when this function returns, on every path
  if (!dir) {
    out.findings.push_back(comm_failure(report::comm_id::kError, "cannot create a temporary directory",
                                        {dir.error().message()}, ""));
    return out;
  }
  // Killed (SIGKILL, a crash), this process cannot clean up: the guard then kills the workers and removes
  // the directory. Declared after dir, so it is dismissed before dir removes itself.
  auto guard = process::OrphanGuard::start();
  if (guard && !node.tool.keep_tmp) (*guard)->watch_dir(dir->path());
  SupervisorTimes times;
  times.begin = t0;
  supervise(out, opt, layout, node, dir->path(), guard ? guard->get() : nullptr, times, on_done);
  out.wall_s = std::chrono::duration<double>(rendezvous::Clock::now() - t0).count();
  return out;
}

}  // namespace dd::comm
