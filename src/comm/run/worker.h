// run_worker: the body of a worker process (`bench --as-worker PLAN --worker-ranks R`): opens the run's
// store, creates the engine's communicator, runs the plan's ops in order and reports each step as an event
// (see worker_events.h) on fd.
#pragma once
#include <string>
#include <vector>

#include "comm/run/plan.h"

namespace dd::comm {

// How the supervisor starts a worker: the distdoctor binary itself, `bench --as-worker PLAN --worker-ranks
// R`. comm owns this contract (run_setup builds the command line); the CLI declares these hidden flags with
// these names and calls run_worker.
inline constexpr const char* kWorkerCommand = "bench";
inline constexpr const char* kAsWorkerFlag = "--as-worker";
inline constexpr const char* kWorkerRanksFlag = "--worker-ranks";

// store_token: the token of plan.run.store_url (handed over in DD_STORE_TOKEN; "" for none).
// Returns the process exit code (0 all done, 4 error).
int run_worker(const Plan& plan, const std::vector<int>& ranks, const std::string& store_token, int fd);

}  // namespace dd::comm
