// MindSpore's scheduler for `launch --mindspore` (see attempt_agent.h): node rank 0 starts the job's command
// once more with MS_ROLE=MS_SCHED, as msrun does, before its workers. It is not a rank: it writes its own log
// (nodeN.scheduler.log), has its own process group (watched by the orphan guard, like the workers'), and is
// stopped with the workers. It ends by itself (exit 0) once every worker has left MindSpore's cluster; a
// non-zero exit or a signal before the workers finished stops the job as scheduler_failed.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/redact.h"
#include "launch/attempt_agent.h"
#include "launch/terminal_tee.h"
#include "logs/python_traceback.h"

namespace dd::launch {

using namespace std::chrono_literals;

namespace {

// After every worker of the job exited 0: how long the scheduler may take to exit by itself.
constexpr auto kSchedulerExitWait = 5s;

bool ended_badly(const process::WorkerState& w) {
  return WIFSIGNALED(w.wait_status) || WEXITSTATUS(w.wait_status) != 0;
}

}  // namespace

MindSporeOptions AttemptAgent::mindspore_options() const {
  MindSporeOptions o;
  o.on = joined().job.mindspore;
  o.hang_timeout_s = joined().job.hang_timeout_s;
  for (const auto& e : s_.base_env) o.user_has_topo_timeout |= e.rfind("MS_TOPO_TIMEOUT=", 0) == 0;
  return o;
}

bool AttemptAgent::start_scheduler() {
  const MindSporeOptions opt = mindspore_options();
  const int node = joined().node_rank;
  if (!opt.on || node != 0) return true;
  process::WorkerSpec spec;
  spec.argv = s_.args.command;
  spec.argv[0] = s_.program;
  spec.env = mindspore_scheduler_env(layout_, opt);
  bool unbuffered = false;
  for (const auto& e : s_.base_env) unbuffered |= e.rfind("PYTHONUNBUFFERED=", 0) == 0;
  if (!unbuffered) spec.env.emplace_back("PYTHONUNBUFFERED", "1");
  spec.env.emplace_back("DISTDOCTOR_LAUNCH_ATTEMPT", std::to_string(attempt_));
  spec.log_path = sched_log_ = scheduler_log_path(s_.run_dir, attempt_, node);
  spec.event_fd = -1;
  spec.die_with_parent = true;
  sched_tail_ = std::make_unique<process::OutputTail>(
      std::vector<process::OutputTail::Source>{
          {sched_log_, std::string(kSchedulerPrefix), tee_shows_scheduler(s_.args.tee)}},
      s_.out_fd, 200);
  sched_tail_->set_before_echo([this] { erase_status(); });
  const Status st = sched_.start({spec}, s_.base_env);
  if (!sched_.workers().empty() && s_.guard) s_.guard->watch_group(sched_.workers().front().pid);
  if (st) return true;
  StopEvent ev;
  ev.cause = StopCause::scheduler_failed;
  ev.detail = st.error().message();
  ev.root.node_rank = node;
  ev.root.exit_code = 127;
  ev.root.end_wall_ms = wall_ms(Clock::now());
  ev.root.log_path = sched_log_;
  ev.root.tail = {redact_text(st.error().message())};
  raise_stop(ev);
  return false;
}

void AttemptAgent::poll_scheduler() {
  if (sched_.workers().empty()) return;
  sched_tail_->poll();
  if (sched_.workers().front().exited) return;
  // A 2 ms look (pidfd): reaps it when it has exited.
  sched_.watch(Clock::now() + 2ms, nullptr, nullptr, [] { return true; });
  const process::WorkerState& w = sched_.workers().front();
  if (!w.exited) return;
  sched_tail_->finish(0);
  // Exit 0 is how MindSpore's scheduler ends once the workers left its cluster.
  if (stop_ || sched_stopped_ || !ended_badly(w)) return;
  StopEvent ev;
  ev.cause = StopCause::scheduler_failed;
  ev.detail = process::describe_wait_status(w.wait_status);
  ev.root = scheduler_record();
  raise_stop(ev);
}

// SIGTERM, not a Ctrl-C's SIGINT: it has nothing to say, and Python defers SIGINT inside MindSpore's init().
void AttemptAgent::signal_scheduler() {
  if (sched_.workers().empty() || sched_stopped_) return;
  sched_.watch(Clock::now() + 2ms, nullptr, nullptr, [] { return true; });
  const process::WorkerState& w = sched_.workers().front();
  if (w.exited) return;
  sched_stopped_ = true;
  ::kill(-w.pid, SIGTERM);
  ::kill(w.pid, SIGTERM);
}

void AttemptAgent::stop_scheduler(std::chrono::milliseconds grace) {
  if (sched_.workers().empty()) return;
  signal_scheduler();
  const process::WorkerState& w = sched_.workers().front();
  sched_.stop_all(grace_cut() ? grace.zero() : grace, SIGTERM, [this] { return grace_cut(); });
  sched_tail_->finish(0);
  sched_tail_->poll();
  if (s_.guard) s_.guard->forget_group(w.pid);
}

void AttemptAgent::await_scheduler() {
  if (sched_.workers().empty()) return;
  const auto until = Clock::now() + kSchedulerExitWait;
  while (!sched_.workers().front().exited && Clock::now() < until) {
    sched_.watch(std::min(until, Clock::now() + 100ms), nullptr, nullptr, {});
    sched_tail_->poll();
  }
  stop_scheduler(std::chrono::milliseconds(int64_t(joined().job.grace_s * 1000)));
}

RankRecord AttemptAgent::scheduler_record() {
  RankRecord r;
  if (sched_.workers().empty()) return r;
  const process::WorkerState& w = sched_.workers().front();
  r.node_rank = joined().node_rank;
  r.pid = w.pid;
  r.running = !w.exited;
  r.stopped_by_us = sched_stopped_ || w.killed_by_us;
  if (w.exited && WIFEXITED(w.wait_status)) r.exit_code = WEXITSTATUS(w.wait_status);
  if (w.exited && WIFSIGNALED(w.wait_status)) r.signal = WTERMSIG(w.wait_status);
  if (w.exited) {
    r.end_s = std::chrono::duration<double>(w.ended - t0_).count();
    r.end_wall_ms = wall_ms(w.ended);
  }
  r.log_path = sched_log_;
  const std::vector<std::string> lines(sched_tail_->last_lines(0).begin(), sched_tail_->last_lines(0).end());
  r.traceback = redact_text(logs::last_python_traceback(lines));
  for (size_t k = lines.size() > 40 ? lines.size() - 40 : 0; k < lines.size(); ++k)
    r.tail.push_back(redact_text(lines[k]));
  return r;
}

}  // namespace dd::launch
