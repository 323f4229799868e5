// Plan: what a worker process is asked to do (engine, ranks, the ordered list of runs), as JSON passed
// from the supervising distdoctor to each `bench --as-worker` child; and the events a worker reports back.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "comm/engine.h"

namespace dd::comm {

struct Plan {
  std::string engine = "nccl";
  int world = 1;
  std::vector<int> devices;  // CUDA device of each global rank
  std::vector<OpRequest> ops;
  int64_t init_timeout_ms = 20000;
  std::string store_dir;  // DirStore directory shared by the workers (when store_url is empty)
  std::string store_url;  // open_store URL of a store shared across nodes; token in env DD_STORE_TOKEN
  std::string prefix = "dd/comm/";
  std::string nccl_lib;
  std::string gloo_iface, gloo_host;
  bool register_buffers = false, cuda_graph = false;
  std::string
      fault;  // test hook: "RANK:die@OP", "RANK:stall@OP", "RANK:nojoin", "RANK:exit", "RANK:corrupt@OP"
};

nlohmann::json op_to_json(const OpRequest& r);
OpRequest op_from_json(const nlohmann::json& j);
nlohmann::json plan_to_json(const Plan& p);
Plan plan_from_json(const nlohmann::json& j);

// Runs the plan for `ranks` in this process, writing one JSON event per line to fd:
//   {"ev":"ready","rank":R,"dev":D,"pci":"..."}        after device set-up
//   {"ev":"init_done","ranks":[..],"lib":"NCCL 2.x"}   communicator created
//   {"ev":"op_start","op":I}                            before each run
//   {"ev":"result","op":I,"ranks":[{rank,time_us,wrong,checked,participated}]}
//   {"ev":"error","stage":"init"|"op","op":I,"msg":"..."}
// Returns the process exit code (0 all done, 4 error).
int run_worker(const Plan& plan, const std::vector<int>& ranks, int fd);

}  // namespace dd::comm
