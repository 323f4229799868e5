// WorkerSet (see worker_set.h).
#include "launch/worker_set.h"

#include <sys/wait.h>

#include <algorithm>
#include <thread>

#include "common/redact.h"
#include "launch/terminal_tee.h"
#include "logs/launch_end_line.h"
#include "logs/python_traceback.h"
#include "probe/fs.h"
#include "probe/proc_probe.h"

namespace dd::launch {

namespace {

double secs(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Appends launch's account of how a rank ended to its log (logs/launch_end_line.h), on a line of its own.
// The log is gone or not ours to write (a link, a FIFO put in its place): nothing is written, and the report
// still says how the rank ended.
void append_end_line(const std::string& path, const RankRecord& r) {
  if (r.running || path.empty() || r.end_wall_ms <= 0) return;
  const std::string text = logs::launch_end_line({.rank = r.rank,
                                                  .pid = r.pid,
                                                  .exit_code = r.exit_code,
                                                  .signal = r.signal,
                                                  .stopped_by_launch = r.stopped_by_us,
                                                  .wall_ms = r.end_wall_ms});
  (void)probe::local_fs().append(path, text, {.own_line = true});  // after the worker's last line
}

}  // namespace

void WorkerSet::plan(int attempt, int first_rank, int n) {
  const int node = s_.joined.node_rank;
  for (int lr = 0; lr < n; ++lr)
    w_.push_back(
        {.rank = first_rank + lr, .log_path = worker_log_path(s_.run_dir, attempt, node, first_rank + lr)});
}

void WorkerSet::open_output(std::function<void()> before_echo) {
  std::vector<process::OutputTail::Source> sources;
  for (const LocalWorker& w : w_)
    sources.push_back({w.log_path, rank_prefix(w.rank), tee_shows(s_.args.tee, w.rank)});
  tail_ = std::make_unique<process::OutputTail>(sources, s_.out_fd, 200);
  tail_->set_before_echo(std::move(before_echo));
  t0_ = Clock::now();
  for (LocalWorker& w : w_) w.last_output = t0_;
}

Status WorkerSet::start(const std::vector<process::WorkerSpec>& specs) {
  Status st = sup_.start(specs, s_.base_env);
  for (size_t i = 0; i < sup_.workers().size(); ++i) {
    w_[i].proc = &sup_.workers()[i];  // the supervisor's vector is made once, by start
    if (s_.guard) s_.guard->watch_group(sup_.workers()[i].pid);
  }
  return st;
}

int WorkerSet::running() const {
  int n = 0;
  for (const auto& w : sup_.workers()) n += w.exited ? 0 : 1;
  return n;
}

void WorkerSet::watch(Clock::time_point until, const std::function<void(size_t)>& on_failed_exit) {
  using namespace std::chrono_literals;
  if (running() == 0) {
    std::this_thread::sleep_for(until - Clock::now());
    return;
  }
  auto on_exit = [&](int i) {
    const process::WorkerState& w = sup_.workers()[size_t(i)];
    tail_->finish(size_t(i));
    if (!w.killed_by_us && (WIFSIGNALED(w.wait_status) || WEXITSTATUS(w.wait_status) != 0))
      on_failed_exit(size_t(i));
  };
  sup_.watch(until, nullptr, on_exit, [] { return true; });
}

std::optional<std::pair<size_t, LocalWorker::Ending>> WorkerSet::find_ending() {
  for (size_t i = 0; i < sup_.workers().size(); ++i) {
    const process::WorkerState& w = sup_.workers()[i];
    if (w.exited || w.killed_by_us || w_[i].ending) continue;
    const probe::ProcSnapshot p = probe::read_proc_stat(w.pid);
    // A status of 0 is a clean end (or only the main thread gone, the rest running on): waitpid tells.
    if (!p.ok || !p.exiting || p.exit_status <= 0) continue;
    tail_->poll();  // what it printed before it ended
    return std::pair{i, LocalWorker::Ending{p.exit_status, Clock::now(), p.state_name}};
  }
  return std::nullopt;
}

void WorkerSet::stop(std::chrono::milliseconds grace, int first_sig, const std::function<bool()>& cut) {
  sup_.stop_all(grace, first_sig, cut);
  for (size_t i = 0; i < sup_.workers().size(); ++i) {
    if (tail_) tail_->finish(i);
    if (s_.guard) s_.guard->forget_group(sup_.workers()[i].pid);
  }
  if (tail_) tail_->poll();
}

void WorkerSet::add_groups(std::vector<pid_t>& groups) const {
  for (const auto& w : sup_.workers()) groups.push_back(w.pid);
}

RankRecord WorkerSet::record(size_t i) const {
  const process::WorkerState& w = sup_.workers()[i];
  const LocalWorker& me = w_[i];
  RankRecord r;
  r.rank = me.rank;
  r.local_rank = int(i);
  r.node_rank = s_.joined.node_rank;
  r.pid = w.pid;
  // Seen failing while its process was still ending (find_ending): that status and moment, not launch's
  // own stop signal that may have reached its lingering threads later.
  const std::optional<LocalWorker::Ending>& ending = me.ending;
  r.running = !w.exited && !ending;
  r.stopped_by_us = w.killed_by_us && !ending;
  if (ending) r.ending_state = ending->state;
  const int status = ending ? ending->status : w.wait_status;
  if (!r.running && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (!r.running && WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (!r.running) {
    const Clock::time_point end = ending ? ending->since : w.ended;
    r.end_s = secs(end - t0_);
    r.end_wall_ms = wall_ms_at(end);
  }
  r.log_path = me.log_path;
  r.identity = me.identity;
  r.identity_read = me.identity_read;
  std::vector<std::string> lines(tail_->last_lines(i).begin(), tail_->last_lines(i).end());
  r.traceback = redact_text(logs::last_python_traceback(lines));
  size_t from = lines.size() > 40 ? lines.size() - 40 : 0;
  for (size_t k = from; k < lines.size(); ++k) r.tail.push_back(redact_text(lines[k]));
  return r;
}

std::vector<RankRecord> WorkerSet::end_records(const std::map<size_t, RankRecord>& snapshots) const {
  std::vector<RankRecord> out;
  for (size_t i = 0; i < sup_.workers().size(); ++i) {
    RankRecord r = record(i);
    append_end_line(w_[i].log_path, r);  // how it ended (a hang snapshot below keeps the state at the hang)
    auto snap = snapshots.find(i);
    if (snap != snapshots.end()) {
      RankRecord s = snap->second;  // running stays true: the state at the moment the hang was declared
      s.stopped_by_us = r.stopped_by_us;
      s.exit_code = r.exit_code;
      s.signal = r.signal;
      s.end_s = r.end_s;
      s.end_wall_ms = r.end_wall_ms;
      s.tail = r.tail;
      r = s;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace dd::launch
