// What the NCCL a job on this node loads will put in /dev/shm, predicted from NCCL's source (2.19-2.28; see
// docs/shm.md): nothing on one node with P2P between the GPUs and cuMem on (the default since 2.19 with a CUDA
// 12+ driver); a proxy pool of about 34 MB per rank per communicator when the job spans nodes, when cuMem or
// runtime connection is off, or with the copy-engine options; the SHM transport's buffers (about 9.6 MB per
// connection, a few connections per rank) where P2P is off or impossible, in /dev/shm files unless NCCL's
// cuMem host memory is on (default from 2.24.3 with a 12.6+ driver; if its test allocation fails, as in some
// containers, NCCL falls back to files). Pure: facts in, an estimate out.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "probe/facts.h"
#include "rules/rule.h"

namespace dd::rules {

struct ShmNeed {
  std::string nccl_version;  // the NCCL the prediction is for ("" when none loads: then nothing predicted)
  int ranks = 0;             // ranks of the job on this node
  int64_t certain = 0;       // bytes NCCL will create in /dev/shm with these settings
  int64_t fallback = 0;      // more bytes, only if NCCL's cuMem host allocation falls back to files
  std::vector<std::string> parts;  // one line per part, with the condition that makes it
};

ShmNeed predict_nccl_shm(const probe::NodeFacts& f, const CheckOptions& opt);

}  // namespace dd::rules
