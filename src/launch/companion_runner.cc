// CompanionRunner (see companion_runner.h): a convention's process beside the workers (MindSpore's
// scheduler).
#include "launch/companion_runner.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/redact.h"
#include "launch/terminal_tee.h"
#include "logs/python_traceback.h"

namespace dd::launch {

using namespace std::chrono_literals;

namespace {

// After every worker of the job exited 0: how long the companion may take to exit by itself.
constexpr auto kCompanionExitWait = 5s;

bool ended_badly(const process::WorkerState& w) {
  return WIFSIGNALED(w.wait_status) || WEXITSTATUS(w.wait_status) != 0;
}

}  // namespace

Status CompanionRunner::start(const CompanionProcess& c, const ConventionInput& in,
                              std::function<void()> before_echo) {
  process::WorkerSpec spec;
  spec.argv = s_.args.command;
  spec.argv[0] = s_.program;
  spec.env = c.env(in);
  if (!in.opt.user_has_pythonunbuffered) spec.env.emplace_back("PYTHONUNBUFFERED", "1");
  spec.env.emplace_back("DISTDOCTOR_LAUNCH_ATTEMPT", std::to_string(attempt_));
  spec.log_path = log_ = companion_log_path(s_.run_dir, attempt_, in.node_rank, c.role);
  spec.event_fd = -1;
  spec.die_with_parent = true;
  tail_ = std::make_unique<process::OutputTail>(
      std::vector<process::OutputTail::Source>{
          {log_, companion_prefix(c.role), tee_shows_companion(s_.args.tee)}},
      s_.out_fd, 200);
  tail_->set_before_echo(std::move(before_echo));
  const Status st = sup_.start({spec}, s_.base_env);
  if (started() && s_.guard) s_.guard->watch_group(sup_.workers().front().pid);
  return st;
}

bool CompanionRunner::ended_badly_now() {
  if (!started()) return false;
  tail_->poll();
  if (sup_.workers().front().exited) return false;
  // A 2 ms look (pidfd): reaps it when it has exited.
  sup_.watch(Clock::now() + 2ms, nullptr, nullptr, [] { return true; });
  const process::WorkerState& w = sup_.workers().front();
  if (!w.exited) return false;
  tail_->finish(0);
  return !signalled_ && ended_badly(w);
}

// SIGTERM, not a Ctrl-C's SIGINT: it has nothing to say, and Python defers SIGINT inside MindSpore's init().
void CompanionRunner::signal() {
  if (!started() || signalled_) return;
  sup_.watch(Clock::now() + 2ms, nullptr, nullptr, [] { return true; });
  const process::WorkerState& w = sup_.workers().front();
  if (w.exited) return;
  signalled_ = true;
  ::kill(-w.pid, SIGTERM);
  ::kill(w.pid, SIGTERM);
}

void CompanionRunner::stop(std::chrono::milliseconds grace, const std::function<bool()>& cut) {
  if (!started()) return;
  signal();
  const process::WorkerState& w = sup_.workers().front();
  sup_.stop_all(cut() ? grace.zero() : grace, SIGTERM, cut);
  tail_->finish(0);
  tail_->poll();
  if (s_.guard) s_.guard->forget_group(w.pid);
}

void CompanionRunner::await(std::chrono::milliseconds grace, const std::function<bool()>& cut) {
  if (!started()) return;
  const auto until = Clock::now() + kCompanionExitWait;
  while (!sup_.workers().front().exited && Clock::now() < until) {
    sup_.watch(std::min(until, Clock::now() + 100ms), nullptr, nullptr, {});
    tail_->poll();
  }
  stop(grace, cut);
}

void CompanionRunner::add_group(std::vector<pid_t>& groups) const {
  for (const auto& w : sup_.workers()) groups.push_back(w.pid);
}

RankRecord CompanionRunner::record(int node_rank, Clock::time_point t0) const {
  RankRecord r;
  if (!started()) return r;
  const process::WorkerState& w = sup_.workers().front();
  r.node_rank = node_rank;
  r.pid = w.pid;
  r.running = !w.exited;
  r.stopped_by_us = signalled_ || w.killed_by_us;
  if (w.exited && WIFEXITED(w.wait_status)) r.exit_code = WEXITSTATUS(w.wait_status);
  if (w.exited && WIFSIGNALED(w.wait_status)) r.signal = WTERMSIG(w.wait_status);
  if (w.exited) {
    r.end_s = std::chrono::duration<double>(w.ended - t0).count();
    r.end_wall_ms = wall_ms_at(w.ended);
  }
  r.log_path = log_;
  const std::vector<std::string> lines(tail_->last_lines(0).begin(), tail_->last_lines(0).end());
  r.traceback = redact_text(logs::last_python_traceback(lines));
  for (size_t k = lines.size() > 40 ? lines.size() - 40 : 0; k < lines.size(); ++k)
    r.tail.push_back(redact_text(lines[k]));
  return r;
}

}  // namespace dd::launch
