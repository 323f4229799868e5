// One process as /proc shows it (state, wait channel, CPU time) and its Python stack from `py-spy dump`: the
// evidence of a hang report. Reads only /proc/PID and runs only py-spy, each with a deadline.
#pragma once
#include <sys/types.h>

#include <string>

namespace dd::probe {

struct ProcSnapshot {
  bool ok = false;
  std::string error;       // "no such process"
  char state = '?';        // R S D T Z ...
  std::string state_name;  // "S (sleeping)"
  std::string wchan;       // /proc/PID/wchan ("0" or "" = none)
  double cpu_s = 0;        // utime + stime of every thread, seconds
  int threads = 0;
  // State T (stopped) or t (tracing stop): the signal that stopped it (SIGSTOP 19, SIGTSTP 20, ...), from the
  // exit_code field of the stat of the thread that took it; 0 unknown (kernels before 3.5).
  int stop_signal = 0;
  // The process is ending: the kernel flag PF_EXITING (stat field 9) or state Z/X. A killed process stays in
  // this state while its threads finish (a CUDA process: seconds, while the driver releases its memory) and
  // cannot be reaped until they have; its main thread shows Z meanwhile.
  bool exiting = false;
  // exiting: the wait status it ends with (stat field 52, as waitpid reports it: WIFSIGNALED, WEXITSTATUS),
  // -1 unknown (kernels before 3.5, or a stat without the field).
  int exit_status = -1;
};

// proc_root: "/proc" (tests pass a recorded tree).
ProcSnapshot read_proc(pid_t pid, const std::string& proc_root = "/proc");

// Only what /proc/PID/stat says, for callers that poll often (launch, every 50 ms): no wchan, and a stopped
// process's stop signal only when its main thread took it (read_proc also looks through its threads).
ProcSnapshot read_proc_stat(pid_t pid, const std::string& proc_root = "/proc");

struct PyStack {
  bool ok = false;
  std::string text;   // py-spy's output
  std::string error;  // "py-spy not on PATH", "timed out after 5000 ms", its stderr
};

// Finds py-spy on path_env (a PATH value) and runs `py-spy dump --pid PID` with a deadline.
PyStack py_spy_dump(pid_t pid, const std::string& path_env, int deadline_ms = 5000);

}  // namespace dd::probe
