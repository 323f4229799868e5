// One GPU per worker: the CUDA_VISIBLE_DEVICES value that shows each NCCL worker process only its own GPU.
// CUDA then sets up one device instead of all of the node's (on 4x H100, 1.3-1.5 s of CUDA init per worker
// became about 0.5 s); NCCL still reaches the other GPUs (P2P to a device the process cannot see works
// since CUDA 10.1, see NCCL's p2p transport).
#pragma once
#include <string>
#include <vector>

#include "comm/engine/run_options.h"
#include "probe/facts.h"

namespace dd::comm {

struct RunLayout;

// One value per worker (in layout.groups order), or empty when the workers keep the node's view: not the
// NCCL engine, a worker serving several ranks (--threads), the caller's own CUDA_VISIBLE_DEVICES in the run's
// environment, or a CUDA_VISIBLE_DEVICES on the node that CUDA would not read to its end (a bad entry, a
// duplicate, MIG ids), or a worker's device beyond the GPUs the facts list, so that the workers' error names
// the node's value as CUDA sees it.
std::vector<std::string> own_gpu_values(const RunOptions& opt, const RunLayout& layout,
                                        const probe::NodeFacts& facts);

}  // namespace dd::comm
