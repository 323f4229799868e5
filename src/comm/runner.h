// run_collectives: the supervising side of a collective test. Starts one worker process per rank (or
// one for all ranks with --threads), feeds them a Plan, gathers their results, and turns every way a
// run can go wrong (init error or timeout, a dead or stalled worker, wrong data) into findings.
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "comm/engine.h"
#include "comm/nccl_log.h"
#include "report/finding.h"

namespace dd::comm {

struct RunOptions {
  std::string engine = "nccl";
  int nproc = 0;       // ranks on this node; 0 = one per visible GPU (nccl), 2 (gloo)
  int world = 0;       // ranks in the whole job (several nodes); 0 = nproc
  int first_rank = 0;  // global rank of this node's first rank
  // Store shared by all ranks: "" = a private directory store (one node); else an open_store URL
  // ("tcp://HOST:PORT", "etcd://...") with its token, and a key prefix unique to this run on every node.
  std::string store_url, store_token, store_prefix = "dd/comm/";
  bool store_master = false;  // this node serves store_url (embedded TCP store) for the run's duration
  bool threads = false;       // one process serves all ranks
  std::vector<int> devices;   // CUDA device of each rank; empty = rank i on device i
  std::vector<OpRequest> ops;
  std::chrono::milliseconds init_timeout{20000};
  std::string nccl_lib, gloo_iface, gloo_host;
  std::vector<std::pair<std::string, std::string>> env;  // extra settings for the workers (NCCL_*)
  bool capture_nccl_log = true;                          // NCCL_DEBUG=INFO into files, parsed afterwards
  bool register_buffers = false;                         // NCCL: ncclCommRegister the buffers
  bool cuda_graph = false;                               // NCCL: time runs as one captured CUDA graph
  std::vector<std::string> wrap;  // argv prefix per worker, "{rank}" replaced (e.g. ip netns exec ns{rank})
  std::string fault;              // test hook passed to workers (see plan.h)
  std::string self_exe;           // binary to start as worker; empty = /proc/self/exe
};

struct OpOutcome {
  OpRequest req;
  bool complete = false;  // every participating rank reported a result
  std::vector<RankResult> ranks;
  uint64_t bytes = 0;           // reported size
  double time_us = 0;           // slowest participating rank
  double algbw = 0, busbw = 0;  // GB/s
  int64_t wrong = 0;
};

struct RunOutcome {
  bool ok = false;  // all ops complete on all ranks with no wrong element
  int world = 0;
  std::string library;  // "NCCL 2.28.9 (/path)"
  std::vector<OpOutcome> ops;
  std::vector<report::Finding> findings;  // failures (and nothing else)
  NcclLogSummary nccl_log;
  double wall_s = 0;
};

RunOutcome run_collectives(const RunOptions& opt);

// GPUs this process may use: CUDA_VISIBLE_DEVICES entries if set, else /proc/driver/nvidia/gpus.
int visible_gpu_count();

// A finding id and fix for a worker's error message, from what NCCL/CUDA said.
struct ErrorCause {
  std::string id;
  std::string fix;
};
ErrorCause classify_comm_error(const std::string& msg, const std::vector<std::string>& nccl_warnings);

}  // namespace dd::comm
