// The `check` command's options, parsed once by cli/check.cc into this one struct and read by const reference
// by the node path (cli/check.cc) and the cluster path (cluster_check.cc, the join's analysis). It lives in
// cluster/ because the cluster layer reads it and must not depend on the CLI.
#pragma once
#include <string>

#include "cluster/job_spec.h"
#include "report/emit.h"

namespace dd::cluster {

struct CheckArgs {
  std::string facts_file;      // --facts FILE: run the rules on recorded facts
  std::string nccl_lib;        // --nccl-lib PATH
  bool cuda_init = false;      // --cuda-init
  bool json = false;           // --json
  bool brief = false;          // --brief: hide ok and info findings in the text report
  int nproc_per_node = 0;      // --nproc-per-node (0 = not given)
  ClusterArgs cluster;         // --nnodes, --node-rank, --master, --token, --deadline, --mesh-bandwidth
  bool local_only = false;     // --local: this node only, even under a launcher
  bool collectives = false;    // --collectives: comm's short collective pass on this node
  std::string engine;          // --engine: "" auto, "nccl", "gloo"
  double init_timeout_s = 10;  // --init-timeout
  bool timing = false;         // --timing: where the --collectives pass's time goes
  bool summary = false;        // --summary: one line (a scheduler's drain reason)
  report::FailOn fail_on = report::FailOn::warn;  // --fail-on warn|fail
  std::string metrics_file;                       // --metrics FILE: Prometheus text
};

}  // namespace dd::cluster
