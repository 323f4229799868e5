// py_spy_dump: `py-spy dump --pid PID` through process::run_program (its own process group, killed at the
// deadline; stdout capped at 256 KiB), its answer or why there is none.
#include <sys/wait.h>

#include "probe/path_lookup.h"
#include "probe/proc_probe.h"
#include "process/run_program.h"

namespace dd::probe {
namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

PyStack py_spy_dump(pid_t pid, const std::string& path_env, int deadline_ms) {
  PyStack res;
  const std::string exe = find_on_path("py-spy", path_env);
  if (exe.empty()) {
    res.error = "py-spy not on PATH";
    return res;
  }
  process::ProgramLimits lim;
  lim.deadline_ms = deadline_ms;
  const process::ProgramResult run = process::run_program({exe, "dump", "--pid", std::to_string(pid)}, lim);
  res.text = run.out;
  if (!run.started) {
    res.error = run.error;
  } else if (run.timed_out) {
    res.error = "py-spy timed out after " + std::to_string(deadline_ms) + " ms";
  } else if (run.exited_ok()) {
    res.ok = true;
  } else {
    const int ws = run.wait_status;
    std::string why = trimmed(run.err);
    if (why.empty())
      why = WIFEXITED(ws) ? "py-spy exited with status " + std::to_string(WEXITSTATUS(ws))
                          : "py-spy killed by signal " + std::to_string(WTERMSIG(ws));
    res.error = why;
  }
  return res;
}

}  // namespace dd::probe
