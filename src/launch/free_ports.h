// Free TCP ports for the job: MASTER_PORT on node rank 0 and one port per worker for Paddle's trainer
// endpoints. The kernel picks them (bind to port 0); they are released at once, so a port can be taken by
// someone else before the job binds it, as with torchrun's choice.
#pragma once
#include <vector>

#include "common/result.h"

namespace dd::launch {

Result<std::vector<int>> pick_free_ports(int count);

}  // namespace dd::launch
