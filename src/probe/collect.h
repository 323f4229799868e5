// collect_node_facts: runs every probe on this node and returns its NodeFacts.
#pragma once
#include <string>

#include "probe/env_probe.h"
#include "probe/facts.h"

namespace dd::probe {

struct ProbeOptions {
  std::string nccl_lib;   // --nccl-lib PATH: also (and first) inspect this libnccl
  bool skip_gpu = false;  // do not touch NVML/CUDA (tests, login nodes)
  // cuInit costs ~0.5 s on an H200 node (0.6 s on 4x H100), more than all other probes together: it runs only
  // when cuda_init asks (--cuda-init, a collective pass); CUDA_VISIBLE_DEVICES is checked against NVML's GPUs.
  bool cuda_init = false;
  // Only the host (without name resolution), the job's environment and NCCL settings: what a process of a
  // cluster run that does not publish its node's facts needs about itself (fast: no child, no NVML).
  bool identity_only = false;
};

// `env`: the process environment as the env probe read it (read_environment()), read once by the caller.
NodeFacts collect_node_facts(const ProbeOptions& opt, const EnvMap& env);
NodeFacts collect_node_facts(const ProbeOptions& opt);  // reads the environment itself
// The CUDA probe alone, cuInit included (in a child with its deadline): `check --collectives` runs it only
// when its pass failed, having left cuInit to the pass's workers.
CudaFacts collect_cuda_facts(const EnvMap& env);

}  // namespace dd::probe
