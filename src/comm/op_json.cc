// op_outcome_json (see op_json.h).
#include "comm/op_json.h"

#include "comm/engine/collective.h"
#include "comm/engine/dtype.h"

namespace dd::comm {

nlohmann::json op_outcome_json(const OpOutcome& o) {
  const auto measured = [&](auto v) { return o.complete ? nlohmann::json(v) : nlohmann::json(); };
  return {{"collective", coll_info(o.req.coll).name},
          {"dtype", dtype_name(o.req.dtype)},
          {"bytes", o.bytes},
          {"complete", o.complete},
          {"status", op_status_name(o.status)},
          {"error", o.error.empty() ? nlohmann::json() : nlohmann::json(o.error)},
          {"time_us", measured(o.time_us)},
          {"algbw_gbps", measured(o.algbw)},
          {"busbw_gbps", measured(o.busbw)},
          {"wrong", o.req.check && o.complete ? nlohmann::json(o.wrong) : nlohmann::json()}};
}

}  // namespace dd::comm
