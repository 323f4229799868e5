// `bench` refusals made before anything runs: sizes that make no sweep (-b above -e, a zero size, a step
// factor under 2) and buffers that cannot fit this machine's memory (host memory with Gloo, GPU memory with
// NCCL). Each returns "" or a message that names the flags and the figures; the command exits 3 (usage).
#pragma once
#include <string>

#include "cli/bench_args.h"
#include "comm/bench_memory.h"
#include "probe/facts.h"
#include "probe/host_memory.h"

namespace dd::cli {

std::string sweep_range_problem(const BenchArgs& a);

// `ranks` ranks of this node running sweep `b`: refused when their buffers do not fit (comm::fits) in
// `host`'s available memory (Gloo) or in the free memory of the smallest GPU, counting the ranks that share
// one (NCCL). Unknown memory: no refusal.
std::string sweep_memory_problem(const comm::BenchOptions& b, int ranks, const probe::NodeFacts& facts,
                                 const probe::HostMemory& host);

}  // namespace dd::cli
