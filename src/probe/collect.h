// collect_node_facts: runs every probe on this node and returns its NodeFacts.
#pragma once
#include <string>

#include "probe/facts.h"

namespace dd::probe {

struct ProbeOptions {
  std::string nccl_lib;     // --nccl-lib PATH: also (and first) inspect this libnccl
  bool skip_gpu = false;    // do not touch NVML/CUDA (tests, login nodes)
};

NodeFacts collect_node_facts(const ProbeOptions& opt);

}  // namespace dd::probe
