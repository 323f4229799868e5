// What a launch attempt produced, as plain data that round-trips through JSON: each worker's end, each
// node's view at the stop, the event that stopped the job. Node agents publish these through the store; every
// node builds the same report from the same facts (failure_report.h).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "launch/clock_offsets.h"
#include "report/finding.h"

namespace dd::launch {

// One worker at the end of an attempt (or at the moment a hang was declared).
struct RankRecord {
  int rank = -1, local_rank = -1, node_rank = -1;
  int pid = -1;
  bool running = false;        // still alive when this record was made (hang snapshots)
  bool stopped_by_us = false;  // ended because launch stopped it (SIGTERM/SIGKILL after another's failure)
  int exit_code = -1;          // exit status when it exited
  int signal = 0;              // terminating signal number, 0 = none
  double end_s = -1;           // seconds from the attempt's start to its end (launcher's clock)
  int64_t end_wall_ms = 0;     // epoch ms of its end (ordering across nodes, approximate)
  std::string log_path;
  std::vector<std::string> tail;  // the last lines of its log (redacted)
  std::string traceback;          // the last Python traceback in its log, "" = none
  // Why it could not be started (its exec failed, status 127): "command not found: pyhton3"; "" = it started.
  std::string start_error;
  // Hang evidence, from /proc and the log, filled only for hang snapshots:
  std::string proc_state;    // "S (sleeping)", "R (running)", "D (disk sleep)"...
  std::string wchan;         // kernel function it waits in ("do_epoll_wait", "futex_wait_queue"...)
  double cpu_s = -1;         // user+system CPU seconds so far
  double cpu_window_s = -1;  // CPU seconds used during the silent window
  double silent_s = -1;      // seconds since it last wrote to its log
  int64_t collectives = -1;  // NCCL collective calls its log shows (NCCL_DEBUG_SUBSYS=COLL), -1 = unknown
  std::string stack;  // Python stacks (faulthandler through launch's hook, else `py-spy dump`), "" = none
  std::string stack_source;  // "faulthandler" or "py-spy"
  std::string stack_error;   // why no stack ("no stack hook registered, py-spy not on PATH")
  std::string fr_dump;       // its Flight Recorder dump file when one was written, "" = none
  // Its /proc state when launch saw it fail while its process was still ending ("Z (zombie)": the main thread
  // gone, other threads still exiting, so waitpid could not reap it yet); "" = reaped as it ended.
  std::string ending_state;
  // What it runs with, read from /proc while it ran (probe/process_identity.h): its NCCL_*, CUDA_*, TORCH_*,
  // LD_PRELOAD... variables (redacted) and "NCCL library" -> "PATH (VERSION)"; compared across ranks
  // (rules/rank_identity.h). identity_read = false: never read (it ended first, or /proc was not readable).
  std::map<std::string, std::string> identity;
  bool identity_read = false;
  bool failed() const { return !running && !stopped_by_us && (signal != 0 || exit_code != 0); }
};

// One node's account of an attempt.
// A rank the others waited for, as the live check saw it: when (local time), who, and the sentence.
struct StragglerSeen {
  std::string at;  // "13:02:11"
  int rank = -1;
  std::string text;
  bool on_gpu = false;  // found from the collectives' GPU times (logs::FrStraggler::on_gpu)
};
void to_json(nlohmann::json& j, const StragglerSeen& s);
void from_json(const nlohmann::json& j, StragglerSeen& s);

struct NodeRecord {
  int node_rank = -1;
  std::string host;
  std::vector<RankRecord> ranks;
  std::map<std::string, std::string> env;  // the launcher's environment on that node, redacted, launcher
                                           // variables left out (for the "env that differs" part)
  nlohmann::json flight_recorder;  // the node's Flight Recorder summary (logs::fr_node_summary), null = none
  int64_t log_free_bytes = -1;  // free bytes left on the filesystem of its --log-dir at the end, -1 unknown
  // Processes the workers left behind outside their process groups (setsid, daemons), stopped by launch at
  // the attempt's end: "pid P: COMMAND".
  std::vector<std::string> strays;
  size_t strays_more = 0;  // found beyond those named
  // Signals from outside this attempt met (a scheduler's SIGUSR1, SIGUSR2, SIGALRM) and what launch did with
  // them: "SIGUSR1 at 12:00:01.250: passed on to 2 worker process groups".
  std::vector<std::string> signals;
  // Stragglers named while the job ran (straggler_watch.cc), each time the answer changed.
  std::vector<StragglerSeen> stragglers_seen;
  // MindSpore's scheduler (--mindspore, node rank 0 only; rank -1, pid -1 = none): how it ended, its log.
  RankRecord scheduler;
};

// scheduler_failed: MindSpore's scheduler process (--mindspore) exited non-zero or by a signal before the
// workers finished.
// cannot_start: launch could not prepare a worker (its log file: a full or read-only log folder).
enum class StopCause {
  none,
  worker_failed,
  hang,
  interrupted,
  node_lost,
  master_lost,
  scheduler_failed,
  cannot_start
};
const char* stop_cause_name(StopCause c);
StopCause stop_cause_from_name(const std::string& s);

// The event that stopped the job (published once per attempt; the first one wins).
struct StopEvent {
  StopCause cause = StopCause::none;
  int node_rank = -1;                      // node that saw it
  int rank = -1;                           // worker_failed: the root-cause rank
  std::string detail;                      // interrupted: "SIGINT"; node_lost: "no heartbeat for 5.0 s"
                                           // cannot_start: "cannot write PATH: no free inodes on ..."
  int trigger_rank = -1;                   // hang: the rank whose printed line declared it, -1 = silence
  std::string trigger;                     // hang: that line (a watchdog timeout, an NCCL error)
  int64_t wall_ms = 0;                     // when it was seen
  RankRecord root;                         // worker_failed: the failed worker's record (log tail, traceback);
                                           // scheduler_failed: the scheduler's
  std::vector<report::Finding> diagnosis;  // catalogue matches on the root rank's log (logs::match_text)
};

struct AttemptRecord {
  int attempt = 0;
  std::vector<std::string> command;
  StopEvent stop;                 // cause none = every worker exited 0
  std::vector<NodeRecord> nodes;  // by node rank; nodes that never answered are missing
  std::vector<int> silent_nodes;  // node ranks that did not send their record before the deadline
  double duration_s = 0;
  double stop_latency_s = -1;              // stop event -> last local worker gone (this node)
  std::vector<ClockOffset> clock_offsets;  // by node rank, measured at the join (clock_offsets.h)
};

void to_json(nlohmann::json& j, const RankRecord& r);
void from_json(const nlohmann::json& j, RankRecord& r);
void to_json(nlohmann::json& j, const NodeRecord& n);
void from_json(const nlohmann::json& j, NodeRecord& n);
void to_json(nlohmann::json& j, const StopEvent& s);
void from_json(const nlohmann::json& j, StopEvent& s);
void to_json(nlohmann::json& j, const AttemptRecord& a);
void from_json(const nlohmann::json& j, AttemptRecord& a);

}  // namespace dd::launch
