// Plan: what a worker process is asked to do: the run's options (as the supervisor resolved them from the
// node's facts), the ranks' devices and the shared store, passed as JSON from the supervising distdoctor to
// each `bench --as-worker` child.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "comm/engine/run_options.h"

namespace dd::comm {

struct Plan {
  RunOptions run;  // engine, ops, store URL and prefix, library, interface, fault hook (never the token)
  int world = 1;
  std::vector<int> devices;  // CUDA device of each global rank
  std::string store_dir;     // DirStore directory shared by the workers (when run.store_url is empty)
  std::optional<std::string> cuda_visible_devices;  // the node's CUDA_VISIBLE_DEVICES (facts), for messages
  // Each worker's CUDA_VISIBLE_DEVICES holds its own GPU only (own_gpu.h: own_gpu_values), so CUDA sets up
  // one device instead of every GPU of the node; the worker's GPU is then CUDA device 0, `devices` still
  // names it.
  bool own_gpu = false;
};

nlohmann::json op_to_json(const OpRequest& r);
OpRequest op_from_json(const nlohmann::json& j);
nlohmann::json plan_to_json(const Plan& p);
Plan plan_from_json(const nlohmann::json& j);

}  // namespace dd::comm
