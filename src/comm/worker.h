// run_worker: the body of a worker process (`bench --as-worker PLAN --worker-ranks R`): opens the run's
// store, creates the engine's communicator, runs the plan's ops in order and reports each step as an event
// (see worker_events.h) on fd.
#pragma once
#include <string>
#include <vector>

#include "comm/plan.h"

namespace dd::comm {

// store_token: the token of plan.run.store_url (handed over in DD_STORE_TOKEN; "" for none).
// Returns the process exit code (0 all done, 4 error).
int run_worker(const Plan& plan, const std::vector<int>& ranks, const std::string& store_token, int fd);

}  // namespace dd::comm
