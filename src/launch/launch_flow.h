// `distdoctor launch` from start to exit code: who this node is, the rendezvous of the node agents, the
// preflight, the attempts (restarts included) and the report every node prints (cli/ prints it).
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "launch/launch_args.h"
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
  // The preflight's warnings, shown (brief, on stderr) before the workers start; the launch goes on.
  std::function<void(const report::Report&)> show_warnings;
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
