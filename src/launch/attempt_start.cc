// Starting one attempt's workers on this node (AttemptAgent::start_workers, attempt_agent.h): the layout the
// nodes agree on, every log file made first, the debug hooks, each worker's record, command and environment
// (every launcher convention that is on: worker_env), the start lines, then the supervisor (a convention's
// companion process first: MindSpore's scheduler).
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "common/redact.h"
#include "common/safe_text.h"
#include "launch/attempt_agent.h"
#include "launch/launcher_convention.h"
#include "launch/run_dir.h"
#include "launch/start_notes.h"
#include "launch/terminal_tee.h"

namespace dd::launch {

namespace {

// A worker whose exec failed, in a shell's words: "command not found: pyhton3" for a name that is not on
// PATH, else the error ("cannot run ./x.py: Permission denied").
std::string start_error_text(const Error& e, const std::string& command) {
  if (e.err == ENOENT && command.find('/') == std::string::npos)
    return "command not found: " + shown(command);
  return redact_text(e.message());
}

}  // namespace

WorkerEnvOptions AttemptAgent::env_options() const {
  WorkerEnvOptions eo;
  eo.bind_gpu = joined().job.bind_gpu;
  eo.gpu_ids = joined().nodes[size_t(joined().node_rank)].gpu_ids;
  for (const auto& e : s_.base_env) {
    eo.user_has_omp_threads |= e.rfind("OMP_NUM_THREADS=", 0) == 0;
    eo.user_has_pythonunbuffered |= e.rfind("PYTHONUNBUFFERED=", 0) == 0;
    eo.user_vars.push_back(e.substr(0, e.find('=')));
  }
  eo.opted_in = opted_in(joined().job);
  eo.hang_timeout_s = joined().job.hang_timeout_s;
  return eo;
}

// Every log file of this node exists before anything starts: a full or read-only log folder is named as
// such (exit 3), not as a worker that "failed with status 127". Then the debug hooks, when they can be.
Status AttemptAgent::prepare_logs(const WorkerEnvOptions& eo) {
  const int node = joined().node_rank;
  std::vector<std::string> log_paths;
  for (const LocalWorker& w : workers_) log_paths.push_back(w.log_path);
  if (const CompanionProcess* c = companion_of(eo); c && node == 0)
    log_paths.push_back(companion_log_path(s_.run_dir, attempt_, node, c->role));
  if (auto st = prepare_attempt_logs(hooks_.dir, log_paths); !st) return st;
  if (hook_opt_.flight_recorder)
    if (Status st = write_debug_hooks(hooks_); !st) {
      hook_opt_.flight_recorder = false;  // the job runs as without the hooks; say why once
      say(s_.progress, ProgressKind::progress,
          "no stack hook or Flight Recorder for this attempt: " + write_problem(st.error(), hooks_.dir));
    }
  return ok_status();
}

// Local rank lr's command (this node's own command line, never one read from the store), env and hook files.
process::WorkerSpec AttemptAgent::worker_spec(int lr, const WorkerEnvOptions& eo) {
  const int node = joined().node_rank;
  LocalWorker& me = workers_[size_t(lr)];
  const int rank = me.rank;
  process::WorkerSpec w;
  w.argv = s_.args.command;
  w.argv[0] = s_.program;
  w.env = worker_env(layout_, node, lr, eo);
  for (auto& kv : debug_hook_env(hooks_, hook_opt_, node, rank, s_.base_env)) w.env.push_back(std::move(kv));
  me.hook = {.stack_file = hook_opt_.flight_recorder ? hooks_.stack_file(node, rank) : "",
             .fr_dump = fr_dump_path(hooks_, hook_opt_, rank, s_.base_env),
             .fr_request = fr_request_path(hooks_, hook_opt_, rank, s_.base_env),
             .fr_asked = fr_asked_path(hooks_, hook_opt_, rank, s_.base_env),
             .fr_exit = fr_exit_path(hooks_, hook_opt_, rank, s_.base_env)};
  if (std::string err = make_fr_request_fifo(me.hook.fr_request); !err.empty()) {
    me.hook.fr_request.clear();  // this rank cannot be asked; its own timeout dump still works
    say(s_.progress, ProgressKind::progress,
        "no Flight Recorder requests for rank " + std::to_string(rank) + ": " + err);
  }
  w.log_path = me.log_path;
  w.event_fd = -1;
  w.die_with_parent = true;
  return w;
}

// MindSpore's scheduler (or another convention's companion) on node rank 0, before its workers, as msrun.
bool AttemptAgent::start_companion(const WorkerEnvOptions& eo) {
  const CompanionProcess* c = companion_of(eo);
  const int node = joined().node_rank;
  if (!c || node != 0) return true;
  const Status st = companion_.start(*c, {layout_, node, 0, eo}, [this] { erase_status(); });
  if (st) return true;
  StopEvent ev;
  ev.cause = StopCause::scheduler_failed;
  ev.detail = st.error().message();
  ev.root.node_rank = node;
  ev.root.exit_code = 127;
  ev.root.end_wall_ms = wall_ms(Clock::now());
  ev.root.log_path = companion_.log_path();
  ev.root.tail = {redact_text(st.error().message())};
  raise_stop(ev);
  return false;
}

// The worker after the last one started could not be (exec failed): a failed worker, exit 127.
void AttemptAgent::raise_start_failed(const Error& e) {
  const size_t started = sup_.workers().size();
  StopEvent ev;
  ev.cause = StopCause::worker_failed;
  ev.rank = started < workers_.size() ? workers_[started].rank : -1;
  ev.root.rank = ev.rank;
  ev.root.local_rank = int(started);  // the one that could not be started
  ev.root.node_rank = joined().node_rank;
  ev.root.exit_code = 127;
  ev.root.end_wall_ms = wall_ms(Clock::now());
  ev.root.tail = {redact_text(e.message())};
  ev.root.start_error = start_error_text(e, s_.args.command.front());
  ev.root.log_path = started < workers_.size() ? workers_[started].log_path : "";
  raise_stop(ev);
}

bool AttemptAgent::start_workers() {
  auto layout = agree_layout(s_, attempt_);
  if (!layout) {
    StopEvent ev;
    ev.cause = joined().node_rank == 0 ? StopCause::node_lost : StopCause::master_lost;
    ev.detail = layout.error().message();
    raise_stop(ev);
    return false;
  }
  layout_ = std::move(*layout);
  const int node = joined().node_rank, first = layout_.first_rank(node);
  const WorkerEnvOptions eo = env_options();
  for (int lr = 0; lr < joined().nodes[size_t(node)].nproc; ++lr)
    workers_.push_back(
        {.rank = first + lr, .log_path = worker_log_path(s_.run_dir, attempt_, node, first + lr)});
  hook_opt_.flight_recorder = joined().job.flight_recorder;
  hooks_ = debug_hook_paths(
      std::filesystem::path(worker_log_path(s_.run_dir, attempt_, node, first)).parent_path().string());
  if (Status st = prepare_logs(eo); !st) {
    StopEvent ev;
    ev.cause = StopCause::cannot_start;
    ev.detail = st.error().message();
    raise_stop(ev);
    return false;
  }
  std::vector<process::WorkerSpec> specs;
  std::vector<process::OutputTail::Source> sources;
  std::vector<int> ranks;
  std::vector<std::string> logs;
  for (int lr = 0; lr < int(workers_.size()); ++lr) {
    specs.push_back(worker_spec(lr, eo));
    const LocalWorker& w = workers_[size_t(lr)];
    sources.push_back({w.log_path, rank_prefix(w.rank), tee_shows(s_.args.tee, w.rank)});
    ranks.push_back(w.rank);
    logs.push_back(w.log_path);
  }
  // Before any worker prints: the job, the real log folder, each log, whose output the terminal shows.
  for (const std::string& line : start_notes(
           {joined().job.job_id, attempt_, node, joined().nnodes, hooks_.dir, ranks, logs, s_.args.tee}))
    say(s_.progress, ProgressKind::progress, line);
  tail_ = std::make_unique<process::OutputTail>(sources, s_.out_fd, 200);
  tail_->set_before_echo([this] { erase_status(); });
  t0_ = Clock::now();
  for (LocalWorker& w : workers_) w.last_output = t0_;
  if (!start_companion(eo)) return true;  // the stop is raised
  if (auto st = sup_.start(specs, s_.base_env); !st) raise_start_failed(st.error());
  for (size_t i = 0; i < sup_.workers().size(); ++i) {
    workers_[i].proc = &sup_.workers()[i];  // the supervisor's vector is made once, by start
    if (s_.guard) s_.guard->watch_group(sup_.workers()[i].pid);
  }
  started_ = true;
  return true;
}

}  // namespace dd::launch
