// The `launch` command's options, parsed once by cli/launch.cc and read by const reference by the launch
// flow (launch_flow.cc), the node agent and the preflight.
#pragma once
#include <string>
#include <vector>

#include "cluster/job_spec.h"
#include "launch/terminal_tee.h"

namespace dd::launch {

struct LaunchArgs {
  std::vector<std::string> command;  // CMD ARGS... after "--"
  std::string nproc = "1";           // --nproc-per-node N|gpu
  cluster::ClusterArgs cluster;      // --nnodes, --node-rank, --master, --token, --token-file, --join-timeout
  std::string log_dir = "distdoctor-logs";  // --log-dir
  std::string job_id;                       // --job-id ("" = the launcher's, else made by node rank 0)
  std::string tee{kTeeDefault};             // --tee all|none|RANK (terminal_tee.h)
  int max_restarts = 0;                     // --max-restarts
  double hang_timeout_s = 0;                // --hang-timeout (0 = off)
  double grace_s = 5;                       // --grace: SIGTERM -> SIGKILL
  int job_port = 0;                         // --job-port (0 = a free one, chosen by node rank 0)
  bool no_preflight = false;                // --no-preflight
  bool no_flight_recorder = false;          // --no-flight-recorder
  double straggler_interval_s = 30;         // --straggler-interval (0 = off): live straggler checks
  std::string metrics_file;                 // --metrics: lateness gauges (lateness_outputs.h)
  bool bind_gpu = false;                    // --bind-gpu
  std::vector<std::string> conventions;     // the opt-in conventions whose flag was given ("mindspore")
  bool json = false;                        // --json: the final report as JSON on stdout
  bool status_line = false;                 // the live status line on stderr (cli: status_line_wanted)
  bool verbose = false;                     // --verbose: every finding's details in the text report
  std::string nccl_lib;                     // --nccl-lib for the preflight's node rules
};

}  // namespace dd::launch
