// What `distdoctor launch` says on stderr as an attempt starts, before any worker prints: the job id, this
// attempt's real log folder, each local rank's log file (a compact form past kListedLogs ranks) and whose
// output the terminal shows (--tee). Pure: the node agent says the lines through its progress sink.
#pragma once
#include <string>
#include <vector>

namespace dd::launch {

struct StartInfo {
  std::string job_id;
  int attempt = 0;
  int node_rank = 0;
  int nnodes = 1;
  std::string attempt_dir;             // RUN_DIR/ATTEMPT, where this node's logs are
  std::vector<int> ranks;              // the global rank of each local worker
  std::vector<std::string> log_paths;  // per local worker, the same order
  std::string tee;                     // --tee: "0", a rank, "all", "none"
};

constexpr size_t kListedLogs = 8;  // more local ranks than this: one line for their logs

// The lines, each without the "distdoctor launch: " prefix and newline (the progress sink adds them).
std::vector<std::string> start_notes(const StartInfo& in);

}  // namespace dd::launch
