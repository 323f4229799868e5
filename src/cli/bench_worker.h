// The hidden worker mode of `distdoctor bench` (`bench --as-worker PLAN --worker-ranks R`): what the
// supervising process starts for each group of ranks.
#pragma once
#include "cli/bench_args.h"

namespace dd::cli {

// Reads the plan, runs its ranks and exits the process (_exit: no library destructors); 3 on a bad plan.
int run_as_worker(const BenchArgs& a);

}  // namespace dd::cli
