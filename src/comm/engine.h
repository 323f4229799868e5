// Engine: one collective library (NCCL on GPUs, Gloo on CPUs) behind one interface. An engine serves
// the ranks of one process: one in the default process-per-GPU mode, all local GPUs in --threads mode.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "comm/collective.h"
#include "comm/dtype.h"
#include "common/result.h"
#include "rendezvous/store.h"

namespace dd::comm {

struct EngineConfig {
  int world = 1;
  std::vector<int> ranks;    // global ranks this process serves
  std::vector<int> devices;  // CUDA device of each served rank (NCCL)
  rendezvous::Store* store = nullptr;
  std::string prefix = "dd/comm/";  // store key prefix of this run
  rendezvous::Deadline init_deadline;
  std::string nccl_lib;           // NCCL: library path, empty = libnccl.so.2
  std::string gloo_iface;         // Gloo: interface name (GLOO_SOCKET_IFNAME) or empty
  std::string gloo_host;          // Gloo: address or host name to bind, empty = hostname
  bool register_buffers = false;  // NCCL: ncclCommRegister every buffer
  bool cuda_graph = false;        // NCCL: time the runs captured as one CUDA graph
};

struct OpRequest {
  Coll coll = Coll::all_reduce;
  Dtype dtype = Dtype::f32;
  uint64_t bytes = 0;
  bool in_place = false;
  int warmup = 1;
  int iters = 1;
  bool check = true;  // poison, run once, count wrong elements, then time
  int root = 0;
  int pair_a = -1, pair_b = -1;  // sendrecv between two ranks only (per-pair matrix); -1 = ring
  std::chrono::milliseconds timeout{10000};
  bool corrupt = false;  // test hook: overwrite one output element before the check (proves checks fail)
};

struct RankResult {
  int rank = -1;
  double time_us = 0;   // mean time of one timed iteration
  int64_t wrong = 0;    // elements that differed from the expected value
  int64_t checked = 0;  // elements compared
  bool participated = true;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  // Creates the communicator; an Error on deadline expiry or library failure (the communicator is aborted).
  virtual Status init(const EngineConfig& cfg) = 0;
  // Runs one collective; an Error (after aborting) when it does not finish before its timeout.
  virtual Result<std::vector<RankResult>> run(const OpRequest& req) = 0;
  // Library details for the report ("NCCL 2.28.9 (/usr/lib/.../libnccl.so.2)").
  virtual std::string describe() const = 0;
};

// "nccl" or "gloo"; an Error when this build lacks the engine.
Result<std::unique_ptr<Engine>> make_engine(const std::string& kind);

}  // namespace dd::comm
