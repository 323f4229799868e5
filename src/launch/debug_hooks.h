// What launch arranges in each worker so that a hang can be explained without py-spy or gdb:
// - PyTorch's Flight Recorder: a ring of the last collectives per process group (sequence numbers, op, sizes,
//   dtypes, state, Python stack), dumped by PyTorch on a watchdog timeout or when a byte is written into the
//   rank's dump pipe, into the attempt's log folder (docs/flight_recorder.md gives the variables).
// - Python's faulthandler on SIGUSR2, registered at interpreter start by a sitecustomize.py on PYTHONPATH
//   (which then runs the user's own sitecustomize, if any): every thread's Python stack into a file, even when
//   the main thread is blocked inside NCCL or CUDA. The hook writes a marker line with its pid when it
//   registers, so the launcher signals only processes that asked for it (SIGUSR2's default action kills).
// The env is a pure function; writing the hook file and reading what the workers wrote is file I/O in the
// attempt's own log folder.
#pragma once
#include <string>
#include <vector>

#include "launch/worker_env.h"

namespace dd::launch {

struct DebugHookPaths {
  std::string dir;         // the attempt's log folder (DIR/JOB/ATTEMPT)
  std::string fr_prefix;   // DIR/JOB/ATTEMPT/flight_recorder/rank   (PyTorch appends the global rank)
  std::string pipe_prefix; // DIR/JOB/ATTEMPT/flight_recorder/pipe_  (PyTorch appends "RANK.pipe")
  std::string site_dir;    // DIR/JOB/ATTEMPT/.pyhooks (holds sitecustomize.py)
  std::string stack_file(int node_rank, int rank) const;  // DIR/JOB/ATTEMPT/stacks/node{N}.rank{R}.txt
};
DebugHookPaths debug_hook_paths(const std::string& attempt_dir);

struct DebugHookOptions {
  bool flight_recorder = true;  // off with --no-flight-recorder (then no faulthandler hook either)
  int fr_buffer = 2000;         // TORCH_FR_BUFFER_SIZE: entries kept per process
};

// The variables one worker gets on top of worker_env(), given the launcher's environment ("NAME=value"):
// the Flight Recorder's (unless the user set its buffer size, under either name: then only what they did
// not set, and their dump file wins), PYTHONPATH with the hook folder first, DISTDOCTOR_STACK_FILE.
EnvPairs debug_hook_env(const DebugHookPaths& p, const DebugHookOptions& o, int node_rank, int rank,
                        const std::vector<std::string>& base_env);

// Where this worker's Flight Recorder dump will land: the user's TORCH_FR_DUMP_TEMP_FILE (or the older
// TORCH_NCCL_DEBUG_INFO_TEMP_FILE) + rank when set, else ours; "" when the Flight Recorder is off.
std::string fr_dump_path(const DebugHookPaths& p, const DebugHookOptions& o, int rank,
                         const std::vector<std::string>& base_env);
// The dump pipe of a rank ("" when it is not ours to write).
std::string fr_pipe_path(const DebugHookPaths& p, const DebugHookOptions& o, int rank,
                         const std::vector<std::string>& base_env);

// Writes DIR/.pyhooks/sitecustomize.py and makes the flight_recorder/ and stacks/ folders. "" or the error.
std::string write_debug_hooks(const DebugHookPaths& p);

// The pids that registered the stack hook in a stack file (its marker lines), in order.
std::vector<int> stack_hook_pids(const std::string& stack_file_text);
// The last stack dump in a stack file: the text after the last marker or "stacks requested" line.
std::string last_stack_dump(const std::string& stack_file_text);
// That dump when it holds a stack (faulthandler answered the last request), else "".
std::string answered_stack(const std::string& stack_file_text);
// A stack file's text (at most 4 MiB, within 0.5 s); "" when it cannot be read.
std::string read_stack_file(const std::string& path);

}  // namespace dd::launch
