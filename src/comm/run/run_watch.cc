// Event parsing and the "who died first" logic of a watched run.
#include "comm/run/run_watch.h"

#include <signal.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "comm/engine/collective.h"
#include "comm/engine/units.h"
#include "comm/run/op_deadline.h"
#include "comm/run/worker_events.h"
#include "common/json_limits.h"
#include "report/first_failure.h"

namespace dd::comm {

using rendezvous::Clock;

RunWatch::RunWatch(int world, const std::vector<std::vector<int>>& groups,
                   const process::WorkerSupervisor& sup, const std::vector<OpRequest>& ops)
    : world_(world), sup_(sup), ops_(ops), st_(world) {
  for (size_t w = 0; w < groups.size(); ++w)
    for (int r : groups[w]) st_[r].worker = int(w);
}

void RunWatch::on_line(int, const std::string& line) {
  nlohmann::json j;
  try {
    j = dd::parse_json(line);
  } catch (...) {
    return;
  }
  std::string ev = j.value("ev", "");
  if (ev == "result") {
    int op = j.value("op", -1);
    for (const auto& r : j["ranks"]) {
      RankResult rr;
      rr.rank = r.value("rank", -1);
      rr.time_us = r.value("time_us", 0.0);
      rr.wrong = r.value("wrong", int64_t(0));
      rr.first_wrong = r.value("first_wrong", int64_t(-1));
      rr.checked = r.value("checked", int64_t(0));
      rr.participated = r.value("participated", true);
      rr.alloc_us = r.value("alloc_us", 0.0);
      rr.wall_us = r.value("wall_us", 0.0);
      if (rr.rank >= 0 && rr.rank < world_) {
        results_[op][rr.rank] = rr;
        st_[rr.rank].last_event_at = Clock::now();
      }
    }
    return;
  }
  if (!j.contains("ranks") || !j["ranks"].is_array()) return;
  for (const auto& x : j["ranks"])
    if (x.is_number_integer() && x.get<int>() >= 0 && x.get<int>() < world_)
      on_rank_event(ev, x.get<int>(), j);
}

void RunWatch::on_rank_event(const std::string& ev, int r, const nlohmann::json& j) {
  RankState& s = st_[r];
  s.last_event_at = Clock::now();
  if (!s.seen.count(ev)) s.seen[ev] = s.last_event_at;
  if (ev == "init_done" && j.contains("phases") && j["phases"].is_array())
    for (const auto& p : j["phases"])
      if (p.is_array() && p.size() == 2 && p[0].is_string() && p[1].is_number())
        s.init_phases.emplace_back(p[0].get<std::string>(), p[1].get<double>());
  if (ev == "ready") s.ready = true;
  if (ev == "init_done") {
    s.init_done = true;
    library_ = j.value("lib", "");
  }
  if (ev == "op_start") {
    s.last_op = j.value("op", -1);
    s.last_op_at = Clock::now();
    const int64_t ms = j.value("timeout_ms", int64_t(-1));
    s.op_timeout = ms >= 0                                             ? std::chrono::milliseconds(ms)
                   : s.last_op >= 0 && size_t(s.last_op) < ops_.size() ? ops_[s.last_op].timeout
                                                                       : std::chrono::milliseconds(0);
    s.run_timeout = std::chrono::milliseconds(std::max<int64_t>(0, j.value("run_timeout_ms", int64_t(0))));
    s.runs_done = -1;
  }
  if (ev == "op_enter") s.entered_op = j.value("op", -1);
  if (ev == "progress" && j.value("op", -1) == s.last_op) s.runs_done = j.value("runs", 0);
  if (ev == "done") s.done = true;
  if (ev == "error") {
    s.error = j.value("msg", "");
    s.error_stage = j.value("stage", "");
    s.error_kind = error_kind_from_name(j.value("kind", ""));
    if (!first_trouble_) first_trouble_ = Clock::now();
  }
}

// Gloo peers abort (SIGABRT) when a connection drops, and a write to a dead peer's socket raises SIGPIPE,
// so either is often a consequence of another death.
bool RunWatch::aborted(int w) const {
  int s = sup_.workers()[w].wait_status;
  return WIFSIGNALED(s) && (WTERMSIG(s) == SIGABRT || WTERMSIG(s) == SIGPIPE);
}

// The deaths of workers that sent no error, for died_worker(). An abort after another rank's error or death
// is a consequence and never the cause.
void RunWatch::on_exit(int w) {
  const auto& ws = sup_.workers()[w];
  bool clean = WIFEXITED(ws.wait_status) && WEXITSTATUS(ws.wait_status) == 0;
  bool had_error = false;
  for (const auto& s : st_) had_error |= s.worker == w && !s.error.empty();
  auto now = Clock::now();
  stuck_watch_.sample(w, ws.pid, probe::ProcSnapshot{}, now);  // reaped: no longer stuck
  for (auto& s : st_)
    if (s.worker == w) s.seen.emplace("exit", now);
  if (!clean && !had_error && !(first_trouble_ && aborted(w))) deaths_.push_back({w, now, aborted(w)});
  if (!clean && !first_trouble_) first_trouble_ = now;
}

namespace {
// How long after a worker aborted another's own death may still be its cause (and the run waits to see one).
constexpr std::chrono::milliseconds kAbortWindow{100};
}  // namespace

// The first worker to die abnormally is the cause; when it only aborted, a worker that died otherwise within
// kAbortWindow (the abort's likely cause) takes its place.
std::optional<size_t> RunWatch::cause_of_death() const {
  std::vector<report::Failure> failures;
  for (const Death& d : deaths_)
    failures.push_back(
        {.time = std::chrono::duration_cast<std::chrono::nanoseconds>(d.at.time_since_epoch()).count(),
         .consequence = d.aborted});
  return report::first_failure(
      failures, {.window = std::chrono::duration_cast<std::chrono::nanoseconds>(kAbortWindow).count()});
}

int RunWatch::died_worker() const {
  const auto c = cause_of_death();
  return c ? deaths_[*c].worker : -1;
}

rendezvous::Clock::time_point RunWatch::died_at() const {
  const auto c = cause_of_death();
  return c ? deaths_[*c].at : rendezvous::Clock::time_point{};
}

std::optional<int> RunWatch::find_overdue_op() const {
  const auto now = Clock::now();
  for (size_t r = 0; r < st_.size(); ++r) {
    const RankState& s = st_[r];
    if (s.worker < 0 || s.done || !s.error.empty() || !s.init_done || s.last_op >= int(ops_.size())) continue;
    auto res = results_.find(s.last_op);
    const bool between = s.last_op < 0 || (res != results_.end() && res->second.count(int(r)));
    if (between) {  // finished the last op (or init), not started the next
      const bool more = size_t(s.last_op + 1) < ops_.size();
      if (more && between_ops_.count() > 0 && now > s.last_event_at + between_ops_) return s.last_op + 1;
      continue;
    }
    const auto limit = s.op_timeout;
    if (now > s.last_op_at + limit + limit / 10 + std::chrono::milliseconds(2000)) return s.last_op;
    if (s.run_timeout.count() > 0) {  // progress reported: one run's deadline since the latest report
      const auto run = s.run_timeout + (s.runs_done > 0 ? std::chrono::milliseconds(0) : kFirstRunAllowance);
      if (now > s.last_event_at + run + run / 10 + std::chrono::milliseconds(2000)) {
        overdue_run_ = run;
        return s.last_op;
      }
    }
  }
  return std::nullopt;
}

std::chrono::milliseconds RunWatch::op_deadline(int op) const {
  std::chrono::milliseconds out{0};
  for (const RankState& s : st_)
    if (s.last_op == op) out = std::max(out, s.op_timeout);
  if (out.count() == 0 && op >= 0 && size_t(op) < ops_.size()) out = ops_[op].timeout;
  return out;
}

void RunWatch::set_watchdogs(Clock::time_point init_deadline, std::chrono::milliseconds between_ops) {
  init_deadline_ = init_deadline;
  between_ops_ = between_ops;
}

std::string RunWatch::op_label(int op) const {
  if (op < 0 || size_t(op) >= ops_.size()) return "?";
  return std::string(coll_info(ops_[op].coll).name) + " " + bytes_text(ops_[op].bytes) +
         (ops_[op].in_place ? " in-place" : "");
}

void RunWatch::on_proc(int worker, pid_t pid, const probe::ProcSnapshot& s) {
  stuck_watch_.sample(worker, pid, s, Clock::now());
}

Clock::time_point RunWatch::last_progress() const {
  Clock::time_point t{};
  for (const RankState& s : st_) t = std::max(t, s.last_event_at);
  return t;
}

void RunWatch::settle_stuck() {
  if (!stuck_) stuck_ = stuck_watch_.at_end(Clock::now(), last_progress());
}

bool RunWatch::all_left() const {
  bool any = false;
  for (const RankState& s : st_) {
    if (s.worker < 0) continue;
    if (!s.seen.count("left")) return false;
    any = true;
  }
  return any;
}

bool RunWatch::should_stop() const {
  if (!stuck_) stuck_ = stuck_watch_.stuck(Clock::now(), last_progress());
  if (stuck_) return true;
  if (!overdue_op_) overdue_op_ = find_overdue_op();
  if (overdue_op_) return true;
  if (init_deadline_ && Clock::now() > *init_deadline_ && !first_trouble_)
    for (const RankState& s : st_)
      if (s.worker >= 0 && !s.init_done && s.error.empty()) init_overdue_ = true;
  if (init_overdue_) return true;
  // A dead worker: stop the others at once (after kAbortWindow if it only aborted, to see whether another
  // rank's death caused that).
  if (const auto c = cause_of_death())
    return !deaths_[*c].aborted || Clock::now() - deaths_[*c].at > kAbortWindow;
  return first_trouble_ && Clock::now() > *first_trouble_ + std::chrono::milliseconds(300);
}

}  // namespace dd::comm
