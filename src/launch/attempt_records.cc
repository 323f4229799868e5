// The node agent's heartbeat, hang and lost-node checks, stop, and the records it publishes and gathers.
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "common/json_limits.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "launch/attempt_agent.h"
#include "launch/stop_signals.h"
#include "logs/analyze.h"
#include "logs/catalogue.h"
#include "logs/launch_end_line.h"
#include "logs/python_traceback.h"
#include "probe/fs.h"
#include "probe/proc_probe.h"
#include "probe/process_identity.h"
#include "probe/system_probe.h"
#include "rules/rank_identity.h"

namespace dd::launch {

using namespace std::chrono_literals;

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

// NCCL collective calls a worker's log shows (NCCL_DEBUG_SUBSYS=COLL), -1 when it shows none.
int64_t collectives_in(const std::string& log_path) {
  logs::LogsOptions opt;
  opt.paths = {log_path};
  opt.jobs = 1;
  logs::LogsResult r = logs::analyze_logs(opt, logs::Catalogue::builtin());
  int64_t n = -1;
  for (const auto& p : r.processes)
    for (const auto& [op, count] : p.coll_counts) n = (n < 0 ? 0 : n) + int64_t(count);
  return n;
}

}  // namespace

void AttemptAgent::heartbeat() {
  const auto now = Clock::now();
  const double window = joined().job.hang_timeout_s;
  Beat b;
  b.seq = ++beat_seq_;
  b.done = done_set_;
  auto last = t0_;
  for (size_t i = 0; i < sup_.workers().size(); ++i) {
    LocalWorker& me = workers_[i];
    last = std::max(last, me.last_output);
    const process::WorkerState& w = proc(i);
    if (w.exited) continue;
    b.alive++;
    b.all_spoke = b.all_spoke && me.last_output > t0_;
    if (window <= 0) continue;
    probe::ProcSnapshot p = probe::read_proc_stat(w.pid);  // only its CPU time
    if (!p.ok) continue;
    me.cpu.sample(now, p.cpu_s);
    double used = me.cpu.used_over(window, now);
    if (used >= 0 && used < kIdleCpuShare * window) b.idle.push_back(me.rank);
  }
  b.silent_s = secs(now - last);
  if (joined().node_rank == 0) return lead_checks(b);
  if (auto st = joined().store->set(attempt_keys(attempt_).of("beat", joined().node_rank),
                                    json_text(nlohmann::json(b)), now + 3s);
      !st)
    note_store_error(st.error(), "while sending a heartbeat");
}

void AttemptAgent::lead_checks(const Beat& mine) {
  const auto now = Clock::now();
  board_->update(0, mine, now);
  for (int n = 1; n < joined().nnodes; ++n) {
    auto key = attempt_keys(attempt_).of("beat", n);
    auto have = joined().store->check({key}, now + 1s);
    if (!have || !(*have)[0]) continue;
    auto v = joined().store->get(key, now + 1s);
    if (!v) continue;
    if (auto beat = dd::parse_record<Beat>(*v)) board_->update(n, *beat, now);
  }
  double silent_for = 0;
  int lost = board_->lost_node(s_.lost_after_s, now, &silent_for);
  if (lost > 0) {
    StopEvent ev;
    ev.cause = StopCause::node_lost;
    ev.node_rank = lost;
    ev.detail = fmt::format(
        "no heartbeat from node rank {} ({}) for {:.1f} s: its launcher died, or the network to "
        "it is down",
        lost, joined().nodes[size_t(lost)].host, silent_for);
    return raise_stop(ev);
  }
  std::string why;
  if (joined().job.hang_timeout_s > 0 && board_->hung(joined().job.hang_timeout_s, &why)) {
    StopEvent ev;
    ev.cause = StopCause::hang;
    ev.detail = why;
    raise_stop(ev);
  }
}

RankRecord AttemptAgent::rank_record(size_t i) {
  const process::WorkerState& w = proc(i);
  const LocalWorker& me = workers_[i];
  RankRecord r;
  r.rank = me.rank;
  r.local_rank = int(i);
  r.node_rank = joined().node_rank;
  r.pid = w.pid;
  // Seen failing while its process was still ending (check_ending): that status and moment, not launch's
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
    r.end_wall_ms = wall_ms(end);
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

RankRecord AttemptAgent::hang_snapshot(size_t i, Clock::time_point now, bool quick) {
  RankRecord r = rank_record(i);
  const process::WorkerState& w = proc(i);
  LocalWorker& me = workers_[i];
  probe::ProcSnapshot p = probe::read_proc(w.pid);
  if (p.ok) {
    r.proc_state = p.state_name;
    r.wchan = p.wchan;
    r.cpu_s = p.cpu_s;
    me.cpu.sample(now, p.cpu_s);
    r.cpu_window_s = me.cpu.used_over(joined().job.hang_timeout_s, now);
  }
  r.silent_s = secs(now - std::max(t0_, me.last_output));
  if (!me.identity.count(rules::kNcclLibraryItem)) {
    const auto id = identity_items(probe::read_process_identity(w.pid));  // it may have loaded NCCL since
    if (!id.empty()) r.identity = id, r.identity_read = true;
  }
  if (!quick) r.collectives = collectives_in(me.log_path);  // a read of the whole log
  const std::string& stack_file = me.hook.stack_file;
  if (!stack_file.empty()) {
    std::string dump = answered_stack(read_stack_file(stack_file));
    if (!dump.empty()) {
      r.stack = dump.substr(0, 64 * 1024);
      r.stack_source = "faulthandler";
      return r;
    }
  }
  if (quick) {
    r.stack_error = stack_file.empty() || stack_hook_pids(read_stack_file(stack_file)).empty()
                        ? "no stack hook in this process (not Python, or started without launch's hook)"
                        : "the stack hook did not answer in time";
    return r;
  }
  probe::PyStack st = probe::py_spy_dump(w.pid, s_.path_env);
  r.stack = st.text;
  r.stack_source = st.text.empty() ? "" : "py-spy";
  r.stack_error =
      st.error.empty() || stack_file.empty() ? st.error : "the stack hook did not answer; " + st.error;
  return r;
}

void AttemptAgent::stop_workers() {
  const auto now = Clock::now();
  const bool hang = stop_->cause == StopCause::hang;
  // An interrupt is diagnosed as a hang is (who still runs, where), within a short wait: Ctrl-C stays quick,
  // and a second one (grace_cut) skips it.
  const bool looked_at = hang || (stop_->cause == StopCause::interrupted && !grace_cut());
  if (looked_at) gather_hang_evidence(hang ? kHangEvidenceWait : kInterruptEvidenceWait);
  if (looked_at)
    for (size_t i = 0; i < sup_.workers().size(); ++i)
      if (!sup_.workers()[i].exited) snapshots_[i] = hang_snapshot(i, now, !hang);
  const bool interrupted = stop_->cause == StopCause::interrupted && stop_signal() != 0;
  const int first = interrupted && stop_signal() == SIGINT ? SIGINT : SIGTERM;
  const double grace = grace_cut() ? 0 : joined().job.grace_s;
  companion_.signal();
  const auto grace_ms = std::chrono::milliseconds(int64_t(grace * 1000));
  sup_.stop_all(grace_ms, first, [this] { return grace_cut(); });
  for (size_t i = 0; i < sup_.workers().size(); ++i) {
    if (tail_) tail_->finish(i);
    if (s_.guard) s_.guard->forget_group(sup_.workers()[i].pid);
  }
  if (tail_) tail_->poll();
  stop_latency_s_ = secs(Clock::now() - stop_seen_);
  companion_.stop(grace_ms, [this] { return grace_cut(); });  // MindSpore's scheduler cannot outlive them
}

NodeRecord AttemptAgent::node_record() {
  NodeRecord n;
  n.node_rank = joined().node_rank;
  n.host = joined().nodes[size_t(n.node_rank)].host;
  n.env = joined().nodes[size_t(n.node_rank)].env;
  n.log_free_bytes = probe::free_bytes_at(s_.args.log_dir);
  forward_signals("the attempt was ending");
  n.signals = signal_notes_;
  n.stragglers_seen = stragglers_.seen();
  if (signal_notes_more_ > 0) n.signals.push_back(fmt::format("and {} more", signal_notes_more_));
  stop_strays(n);
  for (size_t i = 0; i < sup_.workers().size(); ++i) {
    RankRecord r = rank_record(i);
    append_end_line(workers_[i].log_path,
                    r);  // how it ended (a hang snapshot below keeps the state at the hang)
    auto snap = snapshots_.find(i);
    if (snap != snapshots_.end()) {
      RankRecord s = snap->second;  // running stays true: the state at the moment the hang was declared
      s.stopped_by_us = r.stopped_by_us;
      s.exit_code = r.exit_code;
      s.signal = r.signal;
      s.end_s = r.end_s;
      s.end_wall_ms = r.end_wall_ms;
      s.tail = r.tail;
      r = s;
    }
    n.ranks.push_back(std::move(r));
  }
  read_flight_records(n);
  n.scheduler = companion_.record(n.node_rank, t0_);
  return n;
}

void AttemptAgent::gather(AttemptRecord& rec) {
  if (stop_) rec.stop = *stop_;
  NodeRecord mine = node_record();
  const JoinedNodes& j = joined();
  if (rec.stop.cause == StopCause::master_lost) {
    rec.nodes.push_back(std::move(mine));
    return;
  }
  const auto deadline = Clock::now() + std::chrono::milliseconds(int64_t(j.job.grace_s * 1000)) + 10s;
  (void)j.store->set(attempt_keys(attempt_).of("record", j.node_rank), json_text(nlohmann::json(mine)),
                     deadline);
  const int lost = rec.stop.cause == StopCause::node_lost ? rec.stop.node_rank : -1;
  for (int n = 0; n < j.nnodes; ++n) {
    if (n == j.node_rank) {
      rec.nodes.push_back(mine);
      continue;
    }
    auto v = n == lost ? Result<std::string>(Error{"lost"})
                       : j.store->get(attempt_keys(attempt_).of("record", n), deadline);
    auto record = v ? dd::parse_record<NodeRecord>(*v) : std::nullopt;
    if (!record) {  // silent, or a record of the wrong shape
      rec.silent_nodes.push_back(n);
      continue;
    }
    rec.nodes.push_back(std::move(*record));
  }
  (void)j.store->add(attempt_keys(attempt_).at("read"), 1, deadline);
  if (j.node_rank != 0) return;
  // Node rank 0 serves the store: stay until every node has read the records (briefly).
  const int readers = j.nnodes - (lost >= 0 ? 1 : 0);
  for (auto until = Clock::now() + 5s; Clock::now() < until;) {
    auto r = j.store->add(attempt_keys(attempt_).at("read"), 0, until);
    if (!r || *r >= readers) break;
    std::this_thread::sleep_for(20ms);
  }
}

}  // namespace dd::launch
