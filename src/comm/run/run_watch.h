// RunWatch: what the supervisor learns while the workers run: each rank's progress and error (from the
// workers' events), each op's per-rank results, and which worker died first (the cause, not a consequence);
// it also says when to stop waiting.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "comm/engine/op_request.h"
#include "comm/run/stuck_worker.h"
#include "common/result.h"
#include "process/worker_supervisor.h"
#include "rendezvous/store.h"

namespace dd::comm {

struct RankState {
  bool ready = false, init_done = false, done = false;
  int last_op = -1;
  int entered_op = -1;  // the last op it went on to call (op_start, then op_enter): a rank stalled between is
                        // outside the collective the others wait in
  rendezvous::Clock::time_point last_op_at{};  // when it started last_op
  std::chrono::milliseconds op_timeout{0};  // last_op's deadline as the worker sent it (measured or planned)
  // last_op's deadline of one run, when the worker measured it and reports progress (0: none), and the runs
  // of last_op it reported complete (-1: none yet; its first run may set up connections).
  std::chrono::milliseconds run_timeout{0};
  int runs_done = -1;
  rendezvous::Clock::time_point last_event_at{};  // its latest event of any kind (the between-ops watchdog)
  std::string error;                              // the worker's error message ("" none)
  std::string error_stage;                        // "init" or "op"
  ErrorKind error_kind = ErrorKind::other;
  int worker = -1;
  // --timing: when each event of this rank arrived ("ready", "init_done", "done", "left", "exit"), and the
  // steps of engine init the worker measured (name, seconds).
  std::map<std::string, rendezvous::Clock::time_point> seen;
  std::vector<std::pair<std::string, double>> init_phases;
};

// "Is this failure a timeout?": the one answer, from the kind the worker reported with its error.
inline bool is_timeout(const RankState& s) { return !s.error.empty() && s.error_kind == ErrorKind::timeout; }

class RunWatch {
 public:
  RunWatch(int world, const std::vector<std::vector<int>>& groups, const process::WorkerSupervisor& sup,
           const std::vector<OpRequest>& ops);

  void on_line(int worker, const std::string& line);  // one event line of a worker
  void on_exit(int worker);                           // a worker was reaped
  // A sample of a live worker's /proc state (the supervisor reads it through probe/); a failed read forgets
  // the worker's last state.
  void on_proc(int worker, pid_t pid, const probe::ProcSnapshot& s);
  // A death, an error, an op past its deadline, or a worker that cannot run (stopped, zombie, long in D):
  // stop the others soon.
  bool should_stop() const;
  // Every rank of this node said "left": only each worker's process exit remains (CUDA's teardown by the
  // kernel, about 0.5 s on a GPU), which the report need not wait for.
  bool all_left() const;
  // The worker that could not run: the one that stopped the run, else (called once the run ended, after a
  // last sample) one that could not run at its end, whatever ended it.
  const std::optional<StuckWorker>& stuck_worker() const { return stuck_; }
  void settle_stuck();
  // The latest event of any rank (an op's start, result or progress).
  rendezvous::Clock::time_point last_progress() const;
  // The op some rank started and has not finished, error-free, past the op's own deadline plus a margin
  // (the per-op watchdog: a frozen rank is named near the op's expected end, not at the whole run's
  // deadline).
  std::optional<int> overdue_op() const { return overdue_op_; }
  // When the op was overdue because no run completed within one run's deadline: that deadline (else 0).
  std::chrono::milliseconds overdue_run() const { return overdue_run_; }
  // The deadline of `op` the ranks reported when they started it (the longest), else the planned one.
  std::chrono::milliseconds op_deadline(int op) const;
  // Watchdogs beyond each op's own: communicator init must end by `init_deadline`, and a rank may sit at
  // most `between_ops` between one op's result and the next op's start.
  void set_watchdogs(rendezvous::Clock::time_point init_deadline, std::chrono::milliseconds between_ops);
  bool init_overdue() const { return init_overdue_; }

  const std::vector<RankState>& ranks() const { return st_; }
  const std::map<int, std::map<int, RankResult>>& results() const { return results_; }  // op -> rank
  const std::string& library() const { return library_; }
  std::string op_label(int op) const;  // "all_reduce 1 MiB", "... in-place"
  // The worker whose death is the cause (report::first_failure over the abnormal deaths seen), -1 none, and
  // when it died.
  int died_worker() const;
  rendezvous::Clock::time_point died_at() const;

 private:
  bool aborted(int worker) const;
  void on_rank_event(const std::string& ev, int rank, const nlohmann::json& j);

  std::optional<int> find_overdue_op() const;

  int world_;
  const process::WorkerSupervisor& sup_;
  const std::vector<OpRequest>& ops_;
  mutable std::optional<int> overdue_op_;
  mutable std::chrono::milliseconds overdue_run_{0};
  mutable bool init_overdue_ = false;
  StuckWatch stuck_watch_;
  mutable std::optional<StuckWorker> stuck_;
  std::optional<rendezvous::Clock::time_point> init_deadline_;
  std::chrono::milliseconds between_ops_{0};
  std::vector<RankState> st_;
  std::map<int, std::map<int, RankResult>> results_;
  std::string library_;
  std::optional<rendezvous::Clock::time_point> first_trouble_;
  // The abnormal deaths of workers that sent no error, in the order they were reaped.
  struct Death {
    int worker;
    rendezvous::Clock::time_point at;
    bool aborted;  // SIGABRT or SIGPIPE: often a consequence of another death
  };
  std::vector<Death> deaths_;
  std::optional<size_t> cause_of_death() const;
};

}  // namespace dd::comm
