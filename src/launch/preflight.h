// Preflight: after the nodes met and before any worker starts, the checks that make jobs hang or crash at
// start (too few visible GPUs, busy GPUs, interfaces that match nothing, small /dev/shm, env or versions that
// differ across nodes, duplicate hostnames, no TCP between nodes). One node: the node rules; several: the
// multi-node check over the launch's own store, so every node gets the same verdict.
#pragma once
#include "cluster/session.h"
#include "launch/launch_args.h"
#include "launch/launch_join.h"
#include "probe/facts.h"
#include "report/report.h"

namespace dd::launch {

struct PreflightResult {
  report::Report report;
  bool stop = false;  // a fail finding: the launch does not start, on every node
};

PreflightResult run_preflight(const JoinedNodes& joined, const LaunchArgs& args,
                              const cluster::ClusterPlan& plan, const probe::NodeFacts& facts, int nproc);

}  // namespace dd::launch
