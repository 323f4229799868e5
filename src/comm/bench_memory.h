// What a sweep's buffers take per rank, the way the engines allocate them (they only grow, so the largest
// of each kind over the sweep, together), and whether that many ranks fit in the memory there is: the guard
// `bench` applies before it starts a worker.
#pragma once
#include <cstdint>

#include "comm/bench.h"

namespace dd::comm {

struct SweepMemory {
  uint64_t send = 0, recv = 0;  // the input and output buffers
  uint64_t stage = 0;           // Gloo: landing buffer of in-place alltoall and sendrecv
  uint64_t temp = 0;            // Gloo: the copy out-of-place reduce_scatter reduces in
  int buffers = 0;              // how many of the four are used
  uint64_t per_rank() const { return send + recv + stage + temp; }
};

// The peak of one rank (the largest over ranks) for the sweep `b` asks for on `world` ranks: host memory
// with Gloo, GPU memory with NCCL (stage and temp stay 0).
SweepMemory sweep_memory(const BenchOptions& b, int world);

// The share of the available memory the buffers may take; the rest is for the workers themselves.
inline constexpr double kBufferShare = 0.9;

// `ranks` ranks of `per_rank` bytes fit in `available` bytes (at most kBufferShare of it).
bool fits(uint64_t per_rank, int ranks, uint64_t available);

}  // namespace dd::comm
