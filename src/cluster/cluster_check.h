// The multi-node `check` flow: resolve who we are, publish this node's facts, meet through the store, run
// the mesh, print one verdict. cli/check.cc plans the run, probes this node's facts once (all of them on the
// process that publishes them, only its identity on the others) and hands them in.
#pragma once
#include <string>

#include "cluster/check_args.h"
#include "cluster/cross_node_step.h"
#include "cluster/job_spec.h"
#include "cluster/launcher_env.h"
#include "cluster/session.h"
#include "common/result.h"
#include "probe/facts.h"

namespace dd::cluster {

Result<ClusterPlan> plan_cluster_check(const CheckArgs& args, const EnvMap& env);

// Returns the process exit code (the verdict's, or kExitCannotRun when the command line cannot work).
// xn: the cross-node collective pass (--collectives), nullptr for none.
int run_cluster_check(const CheckArgs& args, const ClusterPlan& plan, const probe::NodeFacts& facts,
                      const CrossNodeHooks* xn = nullptr);

}  // namespace dd::cluster
