// The node agent's loop for one attempt (see attempt.h): start, watch, stop on the first failure anywhere.
// (Starting the workers: attempt_start.cc.)
#include "launch/attempt.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "common/json_limits.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "common/signal_name.h"
#include "launch/attempt_agent.h"
#include "launch/status_text.h"
#include "launch/stop_signals.h"
#include "logs/analyze.h"
#include "logs/catalogue.h"
#include "logs/python_traceback.h"
#include "probe/proc_probe.h"

namespace dd::launch {

using namespace std::chrono_literals;

AttemptRecord run_attempt(const AttemptSetup& setup, int attempt) {
  return AttemptAgent(setup, attempt).run();
}

int64_t wall_ms_at(std::chrono::steady_clock::time_point t) {
  auto now_wall = std::chrono::system_clock::now();
  auto wall = now_wall - std::chrono::duration_cast<std::chrono::system_clock::duration>(
                             std::chrono::steady_clock::now() - t);
  return std::chrono::duration_cast<std::chrono::milliseconds>(wall.time_since_epoch()).count();
}

void AttemptAgent::raise_stop(StopEvent ev) {
  if (stop_) return;
  stop_seen_ = Clock::now();
  ev.node_rank = ev.node_rank < 0 ? joined().node_rank : ev.node_rank;
  ev.wall_ms = wall_ms(stop_seen_);
  stop_ = ev;
  note_stop_signals();
  if (ev.cause == StopCause::master_lost) return;  // nobody to tell
  const auto deadline = Clock::now() + 2s;
  auto n = joined().store->add(attempt_keys(attempt_).at("stopn"), 1, deadline);
  if (n && *n == 1)
    (void)joined().store->set(attempt_keys(attempt_).at("stop"), json_text(nlohmann::json(ev)), deadline);
}

void AttemptAgent::note_store_error(const Error& e, const char* during) {
  if (joined().node_rank == 0 || stop_) return;
  StopEvent ev;
  ev.cause = StopCause::master_lost;
  ev.detail = fmt::format("the store on node rank 0 stopped answering {}: {}", during, e.message());
  raise_stop(ev);
}

void AttemptAgent::on_worker_exit(int i) {
  const process::WorkerState& w = proc(size_t(i));
  tail_->finish(size_t(i));
  bool failed = !w.killed_by_us && (WIFSIGNALED(w.wait_status) || WEXITSTATUS(w.wait_status) != 0);
  if (!failed || stop_) return;
  raise_worker_failed(size_t(i));
}

void AttemptAgent::check_ending() {
  if (stop_) return;
  for (size_t i = 0; i < sup_.workers().size(); ++i) {
    const process::WorkerState& w = proc(i);
    if (w.exited || w.killed_by_us || workers_[i].ending) continue;
    const probe::ProcSnapshot p = probe::read_proc_stat(w.pid);
    // A status of 0 is a clean end (or only the main thread gone, the rest running on): waitpid tells.
    if (!p.ok || !p.exiting || p.exit_status <= 0) continue;
    tail_->poll();  // what it printed before it ended
    // A rank that timed out in the watchdog, or saw a peer's NCCL error, and then aborted is a witness: the
    // trigger line starts the hang diagnosis, which names the cause (as when it is reaped after its line).
    if (printed_trigger(i)) return check_triggers();
    workers_[i].ending = LocalWorker::Ending{p.exit_status, Clock::now(), p.state_name};
    return raise_worker_failed(i);
  }
}

void AttemptAgent::raise_worker_failed(size_t i) {
  StopEvent ev;
  ev.cause = StopCause::worker_failed;
  ev.rank = workers_[i].rank;
  ev.root = rank_record(i);
  std::string text;
  for (const auto& l : ev.root.tail) text += l + "\n";
  ev.diagnosis = logs::match_text(text, logs::Catalogue::builtin());
  raise_stop(ev);
}

void AttemptAgent::poll_companion() {
  if (!companion_.ended_badly_now() || stop_) return;
  StopEvent ev;
  ev.cause = StopCause::scheduler_failed;
  ev.detail = process::describe_wait_status(companion_.wait_status());
  ev.root = companion_.record(joined().node_rank, t0_);
  raise_stop(ev);
}

void AttemptAgent::poll_stop_key() {
  if (stop_) return;
  auto key = attempt_keys(attempt_).at("stop");
  auto have = joined().store->check({key}, Clock::now() + 3s);
  if (!have) return note_store_error(have.error(), "while watching for a stop");
  if (!(*have)[0]) return;
  auto v = joined().store->get(key, Clock::now() + 3s);
  if (!v) return note_store_error(v.error(), "while reading the stop");
  StopEvent ev;
  std::string why;
  if (auto read = dd::parse_record<StopEvent>(*v, &why)) {
    ev = std::move(*read);
  } else {
    ev.cause = StopCause::master_lost;
    ev.detail = "unreadable stop event: " + why;
  }
  stop_seen_ = Clock::now();
  stop_ = ev;
  note_stop_signals();
}

void AttemptAgent::poll_done() {
  if (!done_set_) {
    for (const auto& w : sup_.workers())
      if (!w.exited || WIFSIGNALED(w.wait_status) || WEXITSTATUS(w.wait_status) != 0) return;
    done_set_ = true;
    if (auto st = joined().store->set(attempt_keys(attempt_).of("done", joined().node_rank), "1",
                                      Clock::now() + 3s);
        !st)
      return note_store_error(st.error(), "while reporting success");
  }
  std::vector<std::string> names;
  for (int n = 0; n < joined().nnodes; ++n) names.push_back(attempt_keys(attempt_).of("done", n));
  auto have = joined().store->check(names, Clock::now() + 3s);
  if (!have) return note_store_error(have.error(), "while waiting for the other nodes to finish");
  all_done_ = std::all_of(have->begin(), have->end(), [](bool b) { return b; });
}

void AttemptAgent::watch_loop() {
  auto next_store = Clock::now(), next_beat = Clock::now();
  while (!stop_ && !all_done_) {
    bool all_exited =
        std::all_of(sup_.workers().begin(), sup_.workers().end(), [](auto& w) { return w.exited; });
    if (all_exited)
      std::this_thread::sleep_for(50ms);
    else
      sup_.watch(
          Clock::now() + 50ms, nullptr, [this](int i) { on_worker_exit(i); }, [] { return true; });
    check_ending();  // before the others' NCCL errors about it can read as a hang
    tail_->poll();
    check_triggers();
    identities_.tick(workers_, t0_);
    if (!stop_)
      stragglers_.tick(workers_,
                       [this](char what, bool LocalWorker::*flag) { return poke_fr_hooks(what, flag); });
    poll_companion();
    if (stop_) break;
    if (int sig = stop_signal()) {
      StopEvent ev;
      ev.cause = StopCause::interrupted;
      ev.detail = signal_name(sig);
      raise_stop(ev);
      break;
    }
    forward_signals();
    auto now = Clock::now();
    if (now >= next_store) {
      poll_stop_key();
      if (!stop_) poll_done();
      next_store = now + 100ms;
    }
    if (!stop_ && now >= next_beat) {
      heartbeat();
      next_beat = now + 500ms;
    }
    if (!stop_ && !all_done_) show_status(now);
  }
  erase_status();  // before the stop's lines and the report
}

void AttemptAgent::show_status(Clock::time_point now) {
  if (!s_.status || !s_.status->on()) return;
  auto secs = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  StatusInfo in{.ranks = int(sup_.workers().size()),
                .node_rank = joined().node_rank,
                .nnodes = joined().nnodes,
                .elapsed_s = secs(now - t0_),
                .attempt = attempt_};
  for (const auto& w : sup_.workers()) in.running += w.exited ? 0 : 1;
  Clock::time_point last = t0_;
  for (const LocalWorker& w : workers_)
    if (w.last_output > last) {
      last = w.last_output;
      in.last_rank = w.rank;
    }
  in.last_ago_s = secs(now - last);
  s_.status->update(status_text(in), now);
}

AttemptRecord AttemptAgent::run() {
  AttemptRecord rec;
  rec.attempt = attempt_;
  rec.clock_offsets = joined().clocks;
  rec.command = redact_argv(s_.args.command);
  if (joined().node_rank == 0) board_.emplace(joined().nnodes, Clock::now());
  forward_signals("the workers had not started (it would have killed them)");
  if (start_workers() && !stop_) watch_loop();
  identities_.tick(workers_, t0_, true);  // what was read stands; the node's warning if none was said
  if (stop_)
    stop_workers();
  else
    companion_.await(std::chrono::milliseconds(int64_t(joined().job.grace_s * 1000)),
                     [this] { return grace_cut(); });
  gather(rec);
  rec.duration_s = std::chrono::duration<double>(Clock::now() - t0_).count();
  rec.stop_latency_s = stop_latency_s_;
  settle_root_cause(rec);
  return rec;
}

}  // namespace dd::launch
