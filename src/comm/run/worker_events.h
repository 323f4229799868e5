// The events a worker writes to its supervisor, one JSON object per line on a pipe:
//   {"ev":"ready","ranks":[..],"devices":[..]}                  after device set-up
//   {"ev":"init_done","ranks":[..],"lib":"NCCL 2.x (path)"}     communicator created
//   {"ev":"op_start","op":I,"ranks":[..]}                       before each run
//   {"ev":"result","op":I,"ranks":[{rank,time_us,wrong,checked,participated}]}
//   {"ev":"error","stage":"init"|"op","op":I,"ranks":[..],"msg":"...","kind":"timeout"|...}
//   {"ev":"done","ranks":[..]}
// An error carries the dd::ErrorKind of what failed, so the supervisor decides "timeout or not" by kind.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "comm/engine/op_request.h"
#include "common/result.h"

namespace dd::comm {

// Writes one event line to fd (retries short writes; a closed pipe is ignored: the supervisor is gone).
void emit_event(int fd, const nlohmann::json& event);

// The error event of `ranks` at `stage` ("init" or "op"; op index or -1).
nlohmann::json error_event(const std::vector<int>& ranks, const char* stage, int op, const Error& e);

nlohmann::json result_event(int op, const std::vector<RankResult>& results);

// ErrorKind <-> its name in events ("timeout", "crashed", ...; "other" for anything unknown).
const char* error_kind_name(ErrorKind k);
ErrorKind error_kind_from_name(const std::string& name);

}  // namespace dd::comm
