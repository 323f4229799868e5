// The JSON form of one collective's outcome, the same in `check --collectives` (measurements.collectives.ops)
// and `bench --json` (results, which add in_place and per-rank figures): collective, dtype, bytes, complete,
// status, error, and time/algbw/busbw/wrong, each null when the run did not complete (it measured nothing).
#pragma once
#include <nlohmann/json.hpp>

#include "comm/run/runner.h"

namespace dd::comm {

nlohmann::json op_outcome_json(const OpOutcome& o);

}  // namespace dd::comm
