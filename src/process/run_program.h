// run_program: runs a helper program (py-spy, a tool the probes call) to its end or a deadline, in its own
// process group with stdin from /dev/null, and returns what it wrote on stdout and stderr (each capped).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace dd::process {

struct ProgramLimits {
  int deadline_ms = 5000;          // then the whole process group is SIGKILLed
  size_t stdout_cap = 256 * 1024;  // bytes kept of each stream; the rest is read and dropped
  size_t stderr_cap = 16 * 1024;
};

struct ProgramResult {
  bool started = false;    // false: pipe or fork failed (error says which)
  bool timed_out = false;  // killed at the deadline
  int wait_status = 0;     // as waitpid gives it (valid when started)
  std::string out, err;
  std::string error;       // "pipe2: ...", "fork: ..."
  bool exited_ok() const;  // started, not timed out, exit status 0
};

// argv[0] is the program's path (no PATH search); the caller's environment is passed on.
ProgramResult run_program(const std::vector<std::string>& argv, const ProgramLimits& limits = {});

}  // namespace dd::process
