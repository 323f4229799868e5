// What launch arranges in each worker so that a hang can be explained without py-spy or gdb:
// - PyTorch's Flight Recorder: a ring of the last collectives per process group (sequence numbers, op, sizes,
//   dtypes, state, Python stack), dumped by PyTorch itself on a watchdog timeout, and by the hook below when
//   launch asks (a byte in the rank's request FIFO) and when the worker exits cleanly, into the attempt's log
//   folder (docs/flight_recorder.md gives the variables). The hook's dumps leave the Python stacks out:
//   PyTorch's own on-demand dump (TORCH_NCCL_DEBUG_INFO_PIPE_FILE) symbolized them for about 6 s, and a
//   worker that exited meanwhile died of SIGSEGV (4x H200, PyTorch 2.11).
// - Python's faulthandler on SIGUSR2, registered at interpreter start by a sitecustomize.py on PYTHONPATH
//   (which then runs the user's own sitecustomize, if any): every thread's Python stack into a file, even
//   when the main thread is blocked inside NCCL or CUDA. The hook writes a marker line with its pid when it
//   registers, so the launcher signals only processes that asked for it (SIGUSR2's default action kills).
// The env is a pure function; writing the hook file and reading what the workers wrote is file I/O in the
// attempt's own log folder.
#pragma once
#include <string>
#include <vector>

#include "common/result.h"
#include "launch/worker_env.h"
#include "probe/fs.h"

namespace dd::launch {

struct DebugHookPaths {
  std::string dir;             // the attempt's log folder (DIR/JOB/ATTEMPT)
  std::string fr_prefix;       // DIR/JOB/ATTEMPT/flight_recorder/rank   (PyTorch appends the global rank)
  std::string request_prefix;  // DIR/JOB/ATTEMPT/flight_recorder/request_ (+ "RANK.fifo": the hook's FIFO)
  std::string asked_prefix;    // DIR/JOB/ATTEMPT/flight_recorder/asked_rank (+ rank: a dump launch asked for)
  std::string exit_prefix;     // DIR/JOB/ATTEMPT/flight_recorder/exit_rank (+ rank: the dump at a clean exit)
  std::string site_dir;        // DIR/JOB/ATTEMPT/.pyhooks (holds sitecustomize.py)
  std::string stack_file(int node_rank, int rank) const;  // DIR/JOB/ATTEMPT/stacks/node{N}.rank{R}.txt
};
DebugHookPaths debug_hook_paths(const std::string& attempt_dir);

struct DebugHookOptions {
  bool flight_recorder = true;  // off with --no-flight-recorder (then no faulthandler hook either)
  int fr_buffer = 2000;         // TORCH_FR_BUFFER_SIZE: entries kept per process
};

// The variables one worker gets on top of worker_env(), given the launcher's environment ("NAME=value"):
// the Flight Recorder's (unless the user set its buffer size, under either name: then only what they did
// not set, and their dump file wins), PYTHONPATH with the hook folder first, DISTDOCTOR_STACK_FILE, and the
// hook's DISTDOCTOR_FR_REQUEST, DISTDOCTOR_FR_DUMP and DISTDOCTOR_FR_EXIT (fr_request_path and the next two).
EnvPairs debug_hook_env(const DebugHookPaths& p, const DebugHookOptions& o, int node_rank, int rank,
                        const std::vector<std::string>& base_env);

// Where PyTorch's own Flight Recorder dump (on a watchdog timeout) will land: the user's
// TORCH_FR_DUMP_TEMP_FILE (or the older TORCH_NCCL_DEBUG_INFO_TEMP_FILE) + rank when set, else ours; "" when
// the Flight Recorder is off.
std::string fr_dump_path(const DebugHookPaths& p, const DebugHookOptions& o, int rank,
                         const std::vector<std::string>& base_env);
// The hook's request FIFO of a rank: a byte written into it asks the worker for a dump, without Python
// stacks, into fr_asked_path (or PATH.none when the worker does not use torch.distributed); the hook
// writes fr_exit_path when the worker's interpreter exits without an uncaught exception. "" for each when
// the Flight Recorder is off (by --no-flight-recorder or the user's buffer size 0).
std::string fr_request_path(const DebugHookPaths& p, const DebugHookOptions& o, int rank,
                            const std::vector<std::string>& base_env);
std::string fr_asked_path(const DebugHookPaths& p, const DebugHookOptions& o, int rank,
                          const std::vector<std::string>& base_env);
std::string fr_exit_path(const DebugHookPaths& p, const DebugHookOptions& o, int rank,
                         const std::vector<std::string>& base_env);
// Makes that FIFO (replacing a stale one); "" or the error. Nothing for "".
std::string make_fr_request_fifo(const std::string& path, probe::Fs& fs = probe::local_fs());

// Writes DIR/.pyhooks/sitecustomize.py (folder 0700, file 0600, whatever the umask; never through a link)
// and makes the flight_recorder/ and stacks/ folders (0755).
Status write_debug_hooks(const DebugHookPaths& p, probe::Fs& fs = probe::local_fs());
// Appends the "stacks requested" line to a worker's stack file (which the hook made), before its SIGUSR2.
void note_stack_request(const std::string& stack_file, probe::Fs& fs = probe::local_fs());

// The pids that registered the stack hook in a stack file (its marker lines), in order.
std::vector<int> stack_hook_pids(const std::string& stack_file_text);
// The last stack dump in a stack file: the text after the last marker or "stacks requested" line.
std::string last_stack_dump(const std::string& stack_file_text);
// That dump when it holds a stack (faulthandler answered the last request), else "".
std::string answered_stack(const std::string& stack_file_text);
// A stack file's text (at most 4 MiB, within 0.5 s); "" when it cannot be read.
std::string read_stack_file(const std::string& path);

}  // namespace dd::launch
