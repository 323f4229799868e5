// Starting one attempt's workers on this node (AttemptAgent::start_workers, attempt_agent.h): the layout the
// nodes agree on, every log file made first, the debug hooks, each worker's command and environment, the
// start lines on stderr, then the supervisor (MindSpore's scheduler first).
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "common/redact.h"
#include "common/safe_text.h"
#include "launch/attempt_agent.h"
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
  const int node = joined().node_rank;
  const NodeHello& me = joined().nodes[size_t(node)];
  WorkerEnvOptions eo;
  eo.bind_gpu = joined().job.bind_gpu;
  eo.gpu_ids = me.gpu_ids;
  for (const auto& e : s_.base_env) {
    eo.user_has_omp_threads |= e.rfind("OMP_NUM_THREADS=", 0) == 0;
    eo.user_has_pythonunbuffered |= e.rfind("PYTHONUNBUFFERED=", 0) == 0;
  }
  const MindSporeOptions ms = mindspore_options();
  std::vector<process::WorkerSpec> specs;
  std::vector<process::OutputTail::Source> sources;
  const std::string& tee = s_.args.tee;
  hook_opt_.flight_recorder = joined().job.flight_recorder;
  hooks_ = debug_hook_paths(
      std::filesystem::path(worker_log_path(s_.run_dir, attempt_, node, layout_.first_rank(node)))
          .parent_path()
          .string());
  // Every log file of this node exists before anything starts: a full or read-only log folder is named as
  // such (exit 3), not as a worker that "failed with status 127".
  std::vector<std::string> log_paths;
  for (int lr = 0; lr < me.nproc; ++lr)
    log_paths.push_back(worker_log_path(s_.run_dir, attempt_, node, layout_.first_rank(node) + lr));
  if (ms.on && node == 0) log_paths.push_back(scheduler_log_path(s_.run_dir, attempt_, node));
  if (auto st = prepare_attempt_logs(hooks_.dir, log_paths); !st) {
    StopEvent ev;
    ev.cause = StopCause::cannot_start;
    ev.detail = st.error().message();
    raise_stop(ev);
    return false;
  }
  if (hook_opt_.flight_recorder) {
    if (Status st = write_debug_hooks(hooks_); !st) {
      const std::string err = write_problem(st.error(), hooks_.dir);
      hook_opt_.flight_recorder = false;  // the job runs as without the hooks; say why once
      say(s_.progress, ProgressKind::progress, "no stack hook or Flight Recorder for this attempt: " + err);
    }
  }
  for (int lr = 0; lr < me.nproc; ++lr) {
    int rank = layout_.first_rank(node) + lr;
    process::WorkerSpec w;
    w.argv = s_.args.command;  // this node's own command line, never one read from the store
    w.argv[0] = s_.program;
    w.env = worker_env(layout_, node, lr, eo);
    for (auto& kv : mindspore_worker_env(layout_, node, lr, ms)) w.env.push_back(std::move(kv));
    for (auto& kv : debug_hook_env(hooks_, hook_opt_, node, rank, s_.base_env))
      w.env.push_back(std::move(kv));
    stack_files_.push_back(hook_opt_.flight_recorder ? hooks_.stack_file(node, rank) : "");
    fr_dumps_.push_back(fr_dump_path(hooks_, hook_opt_, rank, s_.base_env));
    fr_requests_.push_back(fr_request_path(hooks_, hook_opt_, rank, s_.base_env));
    fr_asked_.push_back(fr_asked_path(hooks_, hook_opt_, rank, s_.base_env));
    fr_exits_.push_back(fr_exit_path(hooks_, hook_opt_, rank, s_.base_env));
    if (std::string err = make_fr_request_fifo(fr_requests_.back()); !err.empty()) {
      fr_requests_.back().clear();  // this rank cannot be asked; its own timeout dump still works
      say(s_.progress, ProgressKind::progress,
          "no Flight Recorder requests for rank " + std::to_string(rank) + ": " + err);
    }
    w.log_path = worker_log_path(s_.run_dir, attempt_, node, rank);
    w.event_fd = -1;
    w.die_with_parent = true;
    sources.push_back({w.log_path, rank_prefix(rank), tee_shows(tee, rank)});
    ranks_.push_back(rank);
    logs_.push_back(w.log_path);
    specs.push_back(std::move(w));
  }
  // Before any worker prints: the job, the real log folder, each log, whose output the terminal shows.
  for (const std::string& line :
       start_notes({joined().job.job_id, attempt_, node, joined().nnodes, hooks_.dir, ranks_, logs_, tee}))
    say(s_.progress, ProgressKind::progress, line);
  cpu_.resize(specs.size());
  ending_.assign(specs.size(), std::nullopt);
  lines_seen_.assign(specs.size(), 0);
  bytes_seen_.assign(specs.size(), 0);
  tail_ = std::make_unique<process::OutputTail>(sources, s_.out_fd, 200);
  tail_->set_before_echo([this] { erase_status(); });
  t0_ = Clock::now();
  last_output_.assign(specs.size(), t0_);
  if (!start_scheduler()) return true;  // MindSpore's, before its workers (as msrun); the stop is raised
  if (auto st = sup_.start(specs, s_.base_env); !st) {
    StopEvent ev;
    ev.cause = StopCause::worker_failed;
    ev.rank = ranks_.empty() ? -1 : ranks_.front() + int(sup_.workers().size());
    ev.root.rank = ev.rank;
    ev.root.local_rank = int(sup_.workers().size());  // the one that could not be started
    ev.root.node_rank = node;
    ev.root.exit_code = 127;
    ev.root.end_wall_ms = wall_ms(Clock::now());
    ev.root.tail = {redact_text(st.error().message())};
    ev.root.start_error = start_error_text(st.error(), s_.args.command.front());
    ev.root.log_path = ev.rank >= 0 ? logs_[size_t(ev.rank - ranks_.front())] : "";
    raise_stop(ev);
  }
  for (const auto& w : sup_.workers())
    if (s_.guard) s_.guard->watch_group(w.pid);
  started_ = true;
  return true;
}

}  // namespace dd::launch
