// The node agent's loop for one attempt (see attempt.h, attempt_agent.h): start, watch, stop on the first
// failure anywhere. (Its stop and records: attempt_records.cc.)
#include "launch/attempt.h"

#include <fmt/format.h>

#include "common/redact.h"
#include "common/signal_name.h"
#include "launch/attempt_agent.h"
#include "launch/attempt_start.h"
#include "launch/status_text.h"
#include "launch/stop_signals.h"
#include "logs/analyze.h"
#include "logs/catalogue.h"

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

void AttemptAgent::check_ending() {
  if (stop_) return;
  const auto ending = workers_.find_ending();
  if (!ending) return;
  // A rank that timed out in the watchdog, or saw a peer's NCCL error, and then aborted is a witness: the
  // trigger line starts the hang diagnosis, which names the cause (as when it is reaped after its line).
  if (evidence_.printed_trigger(ending->first)) return check_triggers();
  workers_.all()[ending->first].ending = ending->second;
  raise_worker_failed(ending->first);
}

void AttemptAgent::check_triggers() {
  if (stop_) return;
  if (auto ev = evidence_.check_triggers()) stop_.raise(std::move(*ev));
}

void AttemptAgent::raise_worker_failed(size_t i) {
  StopEvent ev;
  ev.cause = StopCause::worker_failed;
  ev.rank = workers_.all()[i].rank;
  ev.root = workers_.record(i);
  std::string text;
  for (const auto& l : ev.root.tail) text += l + "\n";
  ev.diagnosis = logs::match_text(text, logs::Catalogue::builtin());
  stop_.raise(ev);
}

void AttemptAgent::poll_companion() {
  if (!companion_.ended_badly_now() || stop_) return;
  StopEvent ev;
  ev.cause = StopCause::scheduler_failed;
  ev.detail = process::describe_wait_status(companion_.wait_status());
  ev.root = companion_.record(joined().node_rank, workers_.t0());
  stop_.raise(ev);
}

void AttemptAgent::watch_turn() {
  workers_.watch(Clock::now() + 50ms, [this](size_t i) {
    if (!stop_) raise_worker_failed(i);
  });
  check_ending();  // before the others' NCCL errors about it can read as a hang
  workers_.tail()->poll();
  check_triggers();
  identities_.tick(workers_.all(), workers_.t0());
  if (!stop_)
    stragglers_.tick(workers_.all(),
                     [this](char what, bool LocalWorker::*flag) { return evidence_.poke(what, flag); });
  poll_companion();
  if (stop_) return;
  if (int sig = stop_signal()) {
    StopEvent ev;
    ev.cause = StopCause::interrupted;
    ev.detail = signal_name(sig);
    return stop_.raise(ev);
  }
  signals_.forward(workers_, companion_);
}

void AttemptAgent::watch_loop() {
  auto next_store = Clock::now(), next_beat = Clock::now();
  while (!stop_ && !heartbeat_.all_done()) {
    watch_turn();
    if (stop_) break;
    auto now = Clock::now();
    if (now >= next_store) {
      stop_.poll();
      if (!stop_) heartbeat_.poll_done(workers_);
      next_store = now + 100ms;
    }
    if (!stop_ && now >= next_beat) {
      heartbeat_.beat(workers_);
      next_beat = now + 500ms;
    }
    if (!stop_ && !heartbeat_.all_done()) show_status(now);
  }
  erase_status();  // before the stop's lines and the report
}

void AttemptAgent::show_status(Clock::time_point now) {
  if (!s_.status || !s_.status->on()) return;
  auto secs = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  const Clock::time_point t0 = workers_.t0();
  StatusInfo in{.ranks = int(workers_.started()),
                .node_rank = joined().node_rank,
                .nnodes = joined().nnodes,
                .elapsed_s = secs(now - t0),
                .attempt = attempt_};
  in.running = workers_.running();
  Clock::time_point last = t0;
  for (const LocalWorker& w : workers_.all())
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
  signals_.forward(workers_, companion_, "the workers had not started (it would have killed them)");
  if (auto stop = AttemptStart(s_, attempt_, workers_, companion_, [this] { erase_status(); }).run())
    stop_.raise(std::move(*stop));
  if (!stop_) watch_loop();
  identities_.tick(workers_.all(), workers_.t0(), true);  // what was read stands; the node's warning if none
  if (stop_)
    stop_workers();
  else
    companion_.await(std::chrono::milliseconds(int64_t(joined().job.grace_s * 1000)),
                     [this] { return stop_.grace_cut(); });
  if (stop_) rec.stop = *stop_.event();
  gather_records(s_, attempt_, node_record(), rec);
  rec.duration_s = std::chrono::duration<double>(Clock::now() - workers_.t0()).count();
  rec.stop_latency_s = stop_latency_s_;
  settle_root_cause(rec);
  return rec;
}

}  // namespace dd::launch
