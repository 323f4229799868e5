// The local workers of one attempt on this node (one LocalWorker record each, local_worker.h): their records
// before they start, their processes (the supervisor's), their output (echoed and kept), and their end: a
// failure seen in /proc while a process is still ending, the stop, and each one's RankRecord. The node agent
// (attempt_agent.h) decides when; this set only does it.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "launch/attempt.h"
#include "launch/local_worker.h"
#include "process/output_tail.h"
#include "process/worker_supervisor.h"

namespace dd::launch {

class WorkerSet {
 public:
  using Clock = std::chrono::steady_clock;
  explicit WorkerSet(const AttemptSetup& s) : s_(s) {}
  // The records of ranks first .. first+n-1, each with its log file (worker_log_path).
  void plan(int attempt, int first_rank, int n);
  std::vector<LocalWorker>& all() { return w_; }
  const std::vector<LocalWorker>& all() const { return w_; }
  // Their output read from their logs, echoed to the terminal (before_echo runs before each write); the
  // moment the workers start (t0) is now.
  void open_output(std::function<void()> before_echo);
  process::OutputTail* tail() const { return tail_.get(); }  // null before open_output
  Clock::time_point t0() const { return t0_; }
  // Starts the processes; an Error names the first that could not be (those before it run).
  Status start(const std::vector<process::WorkerSpec>& specs);
  size_t started() const { return sup_.workers().size(); }
  int running() const;  // started and not yet reaped
  // Waits until `until` for exits; on_failed_exit(i) for worker i that ended badly (not stopped by launch).
  void watch(Clock::time_point until, const std::function<void(size_t)>& on_failed_exit);
  // A worker whose process is ending with a failure (a signal, a non-zero status) before waitpid can reap
  // it (/proc shows it): its index and how it is ending, its last output read.
  std::optional<std::pair<size_t, LocalWorker::Ending>> find_ending();
  int forward(int sig) { return sup_.forward(sig); }  // a signal to every worker's process group
  // first_sig, SIGKILL after grace (none once cut() says so); reaped, their output read to the end.
  void stop(std::chrono::milliseconds grace, int first_sig, const std::function<bool()>& cut);
  void add_groups(std::vector<pid_t>& groups) const;  // their process groups, for the strays' search
  RankRecord record(size_t i) const;                  // worker i as it is now
  // Every worker's record at the end, launch's end line appended to its log; a hang snapshot (by index)
  // keeps the state at the hang, with how it ended.
  std::vector<RankRecord> end_records(const std::map<size_t, RankRecord>& snapshots) const;

 private:
  const AttemptSetup& s_;
  process::WorkerSupervisor sup_;
  std::unique_ptr<process::OutputTail> tail_;
  std::vector<LocalWorker> w_;  // by local rank, as sup_.workers() and tail_'s sources
  Clock::time_point t0_ = Clock::now();
};

}  // namespace dd::launch
