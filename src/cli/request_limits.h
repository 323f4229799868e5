// Requests beyond what this node's facts say it can hold: more workers than its open-file limit allows, or
// bench buffers larger than the smallest GPU's memory. Each check returns "" or a one-line message that
// names the flag and the value; the commands refuse (exit code 3) before starting anything.
#pragma once
#include <cstdint>
#include <string>

#include "probe/facts.h"

namespace dd::cli {

// Open files the supervising process holds per worker (pipes, log file, store connection, with room).
inline constexpr int64_t kFilesPerWorker = 16;

std::string workers_beyond_node(const std::string& flag, int workers, const probe::NodeFacts& f);
// NCCL: each rank holds an input and an output buffer of `bytes` on its GPU.
std::string buffers_beyond_gpu(const std::string& flag, uint64_t bytes, const probe::NodeFacts& f);

}  // namespace dd::cli
