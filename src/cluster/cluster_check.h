// The multi-node `check` flow: resolve who we are, collect and publish facts, meet through the store, run
// the mesh, print one verdict. cli/check.cc calls this when a cluster run is requested.
#pragma once
#include <string>

#include "cluster/job_spec.h"

namespace dd::cluster {

struct OutputOptions {
  bool json = false;
  bool brief = false;
  std::string nccl_lib;
  int nproc_per_node = 0;
};

// Returns the process exit code (the verdict's, or kExitCannotRun when the command line cannot work).
int run_cluster_check(const ClusterArgs& args, const OutputOptions& out, const EnvMap& env);

}  // namespace dd::cluster
