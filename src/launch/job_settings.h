// What every node agent of one launch agrees on, and the store keys they meet under. Node rank 0 publishes
// the JobSettings (restarts, hang timeout... rule the job); each node publishes a NodeHello (its member
// record). No node runs a command it read from the store: each runs its own command line, and the store
// carries only its digest, which every node compares with its own (launch.join.command_differs).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rendezvous/meeting_keys.h"

namespace dd::launch {

struct JobSettings {
  std::string job_id;
  std::string run_id;  // this run of the job (node rank 0's, random): names its log folder (run_dir.h)
  std::string command_digest;  // command_digest(node rank 0's command)
  int max_restarts = 0;
  double hang_timeout_s = 0;
  double grace_s = 5;
  int job_port = 0;         // fixed MASTER_PORT, 0 = free port per attempt
  std::string master_addr;  // node rank 0's address as the others reach it
  bool bind_gpu = false;
  bool preflight = true;             // false with --no-preflight on node rank 0
  bool flight_recorder = true;       // false with --no-flight-recorder: no Flight Recorder, no stack hook
  double straggler_interval_s = 30;  // live straggler checks (straggler_watch.cc); 0: off
  int nnodes = 0;                    // node rank 0's --nnodes (0: a launcher that did not say)
  // The opt-in launcher conventions turned on by their flag (launcher_convention.h): "mindspore" with
  // --mindspore (MS_* variables, and node rank 0 starts the scheduler).
  std::vector<std::string> conventions;
};

struct NodeHello {
  int node_rank = -1;
  std::string host;
  std::string addr;  // where the other nodes reach this one
  int nproc = 1;
  std::vector<std::string> gpu_ids;        // visible GPUs (for --bind-gpu)
  std::map<std::string, std::string> env;  // compared variables, redacted (env_for_compare)
  int64_t pid = 0;
  int nnodes = 0;              // the node count this node was started with (0: a launcher that did not say)
  std::string command_digest;  // command_digest(this node's command)
};

// SHA-256 (hex) of a command line, word by word with their lengths: what nodes compare instead of sending
// the command itself.
std::string command_digest(const std::vector<std::string>& command);

void to_json(nlohmann::json& j, const JobSettings& s);
void from_json(const nlohmann::json& j, JobSettings& s);
void to_json(nlohmann::json& j, const NodeHello& h);
void from_json(const nlohmann::json& j, NodeHello& h);

// The variables of the launcher's environment worth comparing across nodes (NCCL_, CUDA_, GLOO_, UCX_, FI_,
// TORCH*, PYTORCH_, OMP_, PYTHON*, LD_LIBRARY_PATH, PATH, NVIDIA_, HF_, ACCELERATE_, PADDLE_, FLAGS_,
// MS_...), launcher variables left out, secrets replaced by "<redacted:HASH>" (a 16-bit hash of the value, so
// that different secrets on two nodes still show as a difference).
std::map<std::string, std::string> env_for_compare(const std::map<std::string, std::string>& env);

// The launch's store keys: the meeting key scheme of check as well (rendezvous/meeting_keys.h), all under
// "launch/": claim/N, member/N (node N's NodeHello), ~live/N, job (node rank 0's JobSettings), preflight/...
// (the preflight's join, cluster/join.h), and aA/... for attempt A (attempt_keys).
inline const rendezvous::MeetingKeys kLaunchKeys{"launch/"};
// Attempt A's keys: at("stop"), at("stopn"), at("read"), of("done", N), of("slot", N), of("beat", N),
// of("record", N): "launch/a3/beat/1".
rendezvous::MeetingKeys attempt_keys(int attempt);

}  // namespace dd::launch
