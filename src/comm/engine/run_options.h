// RunOptions: everything a collective run is asked to do, parsed once by the command (bench, check) and
// passed by const reference: to the supervisor, inside the Plan to every worker, and to the engines.
#pragma once
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "comm/engine/op_request.h"
#include "rules/engine_choice.h"

namespace dd::comm {

struct RunOptions {
  rules::EngineKind engine = rules::EngineKind::nccl;
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
  std::string nccl_lib;    // NCCL: library to load (rules::choose_nccl_lib); "" = libnccl.so.2
  std::string gloo_iface;  // Gloo: interface; "" = the node's GLOO_SOCKET_IFNAME (facts), else gloo_host
  std::string gloo_host;   // Gloo: address or host name to bind, "" = 127.0.0.1
  // Extra settings for the workers (NCCL_*); "{rank}" in a value becomes the worker's (first) rank.
  std::vector<std::pair<std::string, std::string>> env;
  bool capture_nccl_log = true;    // NCCL_DEBUG=INFO into files, parsed afterwards
  bool register_buffers = false;   // NCCL: ncclCommRegister the buffers
  bool symmetric_windows = false;  // NCCL 2.27+: buffers from ncclMemAlloc in symmetric windows
  bool cuda_graph = false;         // NCCL: time runs as one captured CUDA graph
  std::vector<std::string> wrap;   // argv prefix per worker, "{rank}" replaced (e.g. ip netns exec ns{rank})
  // Test hook passed to workers: "RANK:die@OP", "RANK:stall@OP", "RANK:sigstop@OP", "RANK:nojoin",
  // "RANK:exit", "RANK:corrupt@OP"
  std::string fault;
  std::string self_exe;  // binary to start as worker; empty = this process's own binary
};

}  // namespace dd::comm
