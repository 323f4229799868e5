// `distdoctor launch` from start to exit code: who this node is, the rendezvous of the node agents, the
// preflight, the attempts (restarts included) and the report every node prints (cli/ prints it).
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "common/progress_sink.h"
#include "launch/launch_args.h"
#include "launch/status_line.h"
#include "probe/env_probe.h"
#include "probe/facts.h"
#include "probe/self_probe.h"
#include "process/orphan_guard.h"
#include "report/report.h"

namespace dd::launch {

struct LaunchInputs {
  const LaunchArgs& args;
  const probe::NodeFacts& facts;
  const probe::SelfProcess& self;
  const probe::EnvMap& env;  // the whole environment, as the env probe read it
  process::OrphanGuard* guard = nullptr;
  // What launch says while it works (waiting for nodes, each attempt's start lines, warnings, a restart):
  // cli gives cli::progress_printer("launch", erasing the status line first). launch/ never prints itself.
  ProgressSink progress;
  ProgressSink store_log;  // the embedded store's log when this node serves it (cli: "distdoctor store: ...")
  // Node rank 0 of a job started by hand: the lines to paste on the other nodes, shown as they are (the job
  // token may be in them, which the sink would hide).
  std::function<void(const std::string&)> show_commands;
  bool commands_on_terminal = false;  // show_commands writes to a terminal (the token may be shown there)
  // The preflight's warnings, shown (brief, on stderr) before the workers start; the launch goes on.
  std::function<void(const report::Report&)> show_warnings;
  int worker_fd = 1;             // where the workers' lines are echoed (cli: stdout, stderr with --json)
  StatusLine* status = nullptr;  // the live status line, on the stream cli gave it; null: none
};

struct LaunchOutcome {
  // The exit code (failure_report.h): 4 when a worker failed (its own status in extra's worker_exit_code),
  // 124 for a hang, 0 when every worker exited 0; 2 when the preflight stops the launch; 3 when the command
  // line or the rendezvous cannot work.
  int exit_code = 0;
  std::optional<report::Report> report;  // what this node prints on stdout (none with cannot_run)
  nlohmann::json extra =
      nlohmann::json::object();  // JSON beside the report: attempts, preflight, worker_exit_code
  std::string cannot_run;        // one line on stderr instead of a report
};

LaunchOutcome run_launch(const LaunchInputs& in);

// --nproc-per-node: a count, or "gpu" for the visible GPUs. Error text on bad input.
Result<int> resolve_nproc(const std::string& value, const probe::NodeFacts& facts);

}  // namespace dd::launch
