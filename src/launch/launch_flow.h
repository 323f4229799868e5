// `distdoctor launch` from start to exit code: who this node is, the rendezvous of the node agents, the
// preflight, the attempts (restarts included) and the report every node prints.
#pragma once
#include "launch/launch_args.h"
#include "process/orphan_guard.h"
#include "probe/env_probe.h"
#include "probe/facts.h"
#include "probe/self_probe.h"

namespace dd::launch {

struct LaunchInputs {
  const LaunchArgs& args;
  const probe::NodeFacts& facts;
  const probe::SelfProcess& self;
  const probe::EnvMap& env;  // the whole environment, as the env probe read it
  process::OrphanGuard* guard = nullptr;
};

// Returns the exit code: the failing worker's (128+signal for a signal), 124 for a hang, 0 when every worker
// exited 0; 2 when the preflight stops the launch; 3 when the command line or the rendezvous cannot work.
int run_launch(const LaunchInputs& in);

// --nproc-per-node: a count, or "gpu" for the visible GPUs. Error text on bad input.
Result<int> resolve_nproc(const std::string& value, const probe::NodeFacts& facts);

}  // namespace dd::launch
