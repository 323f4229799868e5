// One local worker of an attempt as this node's WorkerSet keeps it (worker_set.h), in one record instead of a
// vector per field kept in step: its rank and log, the debug hook files it was given, and what the agent has
// seen of it (its output, CPU time, identity, a failure seen in /proc, Flight Recorder requests). Its process
// (pid, exit status) is the supervisor's process::WorkerState it points to, its output the OutputTail's
// source at the same index.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "launch/hang_watch.h"
#include "process/worker_supervisor.h"

namespace dd::launch {

// The files launch's debug hook uses for one worker (debug_hooks.h); "" = none.
struct WorkerHookFiles {
  std::string stack_file;  // faulthandler's Python stacks (SIGUSR2)
  std::string fr_dump;     // PyTorch's own Flight Recorder dump (on a watchdog timeout)
  std::string fr_request;  // the hook's request FIFO: a byte asks for a dump
  std::string fr_asked;    // the dump it writes when asked (+ ".live" for a straggler snapshot)
  std::string fr_exit;     // the dump it writes at a clean exit
};

struct LocalWorker {
  using Clock = std::chrono::steady_clock;
  int rank = -1;  // global rank
  std::string log_path;
  // Its process (pid, exit status), the supervisor's, once started: null before, or when its exec failed.
  const process::WorkerState* proc = nullptr;
  bool running() const { return proc && !proc->exited; }
  WorkerHookFiles hook;
  CpuWindow cpu;
  // Seen failing in /proc while its process was still ending (WorkerSet::find_ending).
  struct Ending {
    int status = 0;  // the wait status it showed (a signal or a non-zero exit)
    Clock::time_point since;
    std::string state;  // "Z (zombie)"
  };
  std::optional<Ending> ending;
  uint64_t lines_seen = 0;        // lines already checked for hang triggers
  uint64_t bytes_seen = 0;        // bytes of its log already looked at
  Clock::time_point last_output;  // its last output that was not a dump's echo
  bool fr_listening = false;      // a hook read its FIFO when the hang's dumps were asked (a dump will come)
  bool snapshot_waiting = false;  // its straggler snapshot is still to come
  // Its environment and NCCL library read from /proc (identity_watch.cc): RankRecord::identity.
  std::map<std::string, std::string> identity;
  bool identity_read = false;
  bool identity_settled = false;  // NCCL loaded, it ended, or patience ran out
};

}  // namespace dd::launch
