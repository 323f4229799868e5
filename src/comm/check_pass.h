// run_check_pass: the short collective pass `check` can run: every collective once with its data
// verified, one bandwidth point compared with the link, all within a few seconds; returns findings.
#pragma once
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "comm/run/runner.h"
#include "report/finding.h"

namespace dd::comm {

struct CheckPassOptions {
  std::optional<rules::EngineKind> engine;  // none: rules::choose_engine
  int nproc = 0;                            // 0 = one per visible GPU (gloo: 2)
  bool threads = false;                     // one process serves every rank (bench --quick --threads)
  std::string nccl_lib;                     // the library to load (rules::choose_nccl_lib)
  std::chrono::milliseconds init_timeout{10000};
  uint64_t bandwidth_bytes = 256ull << 20;         // 0 = no bandwidth point
  std::chrono::milliseconds bandwidth_timeout{0};  // the bandwidth point's deadline; 0 = from its size
  std::string self_exe;                            // worker binary; empty = this process's own
};

struct CheckPassResult {
  std::vector<report::Finding> findings;
  // {"engine","library","world","ok","wall_s","ops":[{"collective","dtype","bytes","complete","status",
  //  "error","time_us","algbw_gbps","busbw_gbps","wrong"}] (numbers null when not complete),
  //  "nccl_transports":{...},"timing":{"total_s","phases":[...]}}
  nlohmann::json measurements;
  RunTiming timing;                // where the pass's time went (--timing)
  std::vector<std::string> notes;  // settings the pass chose for itself (pass_env in the measurements)
};

// NCCL_MAX_P2P_NCHANNELS for the pass when the node does not set it: fewer P2P connections to set up.
constexpr int kPassP2pChannels = 2;
inline constexpr const char* kPassEnvWhy = "fewer connections to set up; your job keeps NCCL's default";

// The pass with its measurements (for `check --collectives --json`).
CheckPassResult run_check_pass_measured(const CheckPassOptions& opt, const NodeContext& node);

// The pass's findings only (bench --quick).
std::vector<report::Finding> run_check_pass(const CheckPassOptions& opt, const NodeContext& node);

}  // namespace dd::comm
