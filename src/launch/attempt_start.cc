// AttemptStart (see attempt_start.h).
#include "launch/attempt_start.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "common/redact.h"
#include "common/safe_text.h"
#include "launch/launcher_convention.h"
#include "launch/run_dir.h"
#include "launch/start_notes.h"

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

WorkerEnvOptions AttemptStart::env_options() const {
  WorkerEnvOptions eo;
  eo.bind_gpu = s_.joined.job.bind_gpu;
  eo.gpu_ids = s_.joined.nodes[size_t(s_.joined.node_rank)].gpu_ids;
  for (const auto& e : s_.base_env) {
    eo.user_has_omp_threads |= e.rfind("OMP_NUM_THREADS=", 0) == 0;
    eo.user_has_pythonunbuffered |= e.rfind("PYTHONUNBUFFERED=", 0) == 0;
    eo.user_vars.push_back(e.substr(0, e.find('=')));
  }
  eo.opted_in = opted_in(s_.joined.job);
  eo.hang_timeout_s = s_.joined.job.hang_timeout_s;
  return eo;
}

// Every log file of this node exists before anything starts: a full or read-only log folder is named as
// such (exit 3), not as a worker that "failed with status 127". Then the debug hooks, when they can be.
Status AttemptStart::prepare_logs(const WorkerEnvOptions& eo) {
  const int node = s_.joined.node_rank;
  std::vector<std::string> log_paths;
  for (const LocalWorker& w : w_.all()) log_paths.push_back(w.log_path);
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
process::WorkerSpec AttemptStart::worker_spec(int lr, const WorkerEnvOptions& eo) {
  const int node = s_.joined.node_rank;
  LocalWorker& me = w_.all()[size_t(lr)];
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
std::optional<StopEvent> AttemptStart::start_companion(const WorkerEnvOptions& eo) {
  const CompanionProcess* c = companion_of(eo);
  const int node = s_.joined.node_rank;
  if (!c || node != 0) return std::nullopt;
  const Status st = companion_.start(*c, {layout_, node, 0, eo}, erase_status_);
  if (st) return std::nullopt;
  StopEvent ev;
  ev.cause = StopCause::scheduler_failed;
  ev.detail = st.error().message();
  ev.root.node_rank = node;
  ev.root.exit_code = 127;
  ev.root.end_wall_ms = wall_ms_at(std::chrono::steady_clock::now());
  ev.root.log_path = companion_.log_path();
  ev.root.tail = {redact_text(st.error().message())};
  return ev;
}

// The worker after the last one started could not be (exec failed): a failed worker, exit 127.
StopEvent AttemptStart::start_failed(const Error& e) const {
  const size_t started = w_.started();
  const std::vector<LocalWorker>& workers = w_.all();
  StopEvent ev;
  ev.cause = StopCause::worker_failed;
  ev.rank = started < workers.size() ? workers[started].rank : -1;
  ev.root.rank = ev.rank;
  ev.root.local_rank = int(started);  // the one that could not be started
  ev.root.node_rank = s_.joined.node_rank;
  ev.root.exit_code = 127;
  ev.root.end_wall_ms = wall_ms_at(std::chrono::steady_clock::now());
  ev.root.tail = {redact_text(e.message())};
  ev.root.start_error = start_error_text(e, s_.args.command.front());
  ev.root.log_path = started < workers.size() ? workers[started].log_path : "";
  return ev;
}

std::optional<StopEvent> AttemptStart::run() {
  auto layout = agree_layout(s_, attempt_);
  if (!layout) {
    StopEvent ev;
    ev.cause = s_.joined.node_rank == 0 ? StopCause::node_lost : StopCause::master_lost;
    ev.detail = layout.error().message();
    return ev;
  }
  layout_ = std::move(*layout);
  const int node = s_.joined.node_rank, first = layout_.first_rank(node);
  const WorkerEnvOptions eo = env_options();
  w_.plan(attempt_, first, s_.joined.nodes[size_t(node)].nproc);
  hook_opt_.flight_recorder = s_.joined.job.flight_recorder;
  hooks_ = debug_hook_paths(
      std::filesystem::path(worker_log_path(s_.run_dir, attempt_, node, first)).parent_path().string());
  if (Status st = prepare_logs(eo); !st) {
    StopEvent ev;
    ev.cause = StopCause::cannot_start;
    ev.detail = st.error().message();
    return ev;
  }
  std::vector<process::WorkerSpec> specs;
  std::vector<int> ranks;
  std::vector<std::string> logs;
  for (int lr = 0; lr < int(w_.all().size()); ++lr) {
    specs.push_back(worker_spec(lr, eo));
    ranks.push_back(w_.all()[size_t(lr)].rank);
    logs.push_back(w_.all()[size_t(lr)].log_path);
  }
  // Before any worker prints: the job, the real log folder, each log, whose output the terminal shows.
  for (const std::string& line : start_notes(
           {s_.joined.job.job_id, attempt_, node, s_.joined.nnodes, hooks_.dir, ranks, logs, s_.args.tee}))
    say(s_.progress, ProgressKind::progress, line);
  w_.open_output(erase_status_);
  if (auto stop = start_companion(eo)) return stop;
  if (auto st = w_.start(specs); !st) return start_failed(st.error());
  return std::nullopt;
}

}  // namespace dd::launch
