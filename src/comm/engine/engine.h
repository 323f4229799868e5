// Engine: one collective library (NCCL on GPUs, Gloo on CPUs) behind one interface. An engine serves
// the ranks of one process: one in the default process-per-GPU mode, all local GPUs in --threads mode.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "comm/engine/run_options.h"
#include "common/result.h"
#include "rendezvous/store.h"

namespace dd::comm {

struct EngineConfig {
  const RunOptions* run = nullptr;  // the run's options: store prefix, library, interface, buffer settings
  int world = 1;
  std::vector<int> ranks;    // global ranks this process serves
  std::vector<int> devices;  // CUDA device of each served rank (NCCL), as the node numbers them
  bool own_gpu = false;      // this process sees only its rank's GPU: CUDA device 0 (Plan::own_gpu)
  rendezvous::Store* store = nullptr;
  rendezvous::Deadline init_deadline;
  std::optional<std::string> cuda_visible_devices;  // the node's CUDA_VISIBLE_DEVICES (facts), for messages
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

  // The steps of init() and how long each took (name, seconds), for --timing.
  std::vector<std::pair<std::string, double>> init_phases;
  // Whether run(req) calls on_progress as its runs complete (then a stall is bounded by req.run_timeout).
  virtual bool reports_progress(const OpRequest&) const { return false; }
  // Set by the worker: called with the runs of the current op completed so far (any step of it, often).
  std::function<void(int)> on_progress;

 protected:
  void progress(int runs) {
    if (on_progress) on_progress(runs);
  }
};

// Seconds since `t0` (a phase's length for Engine::init_phases).
inline double seconds_since(rendezvous::Clock::time_point t0) {
  return std::chrono::duration<double>(rendezvous::Clock::now() - t0).count();
}

// The engine of that kind; an Error when this build lacks it.
Result<std::unique_ptr<Engine>> make_engine(rules::EngineKind kind);

// Whether this build has the NCCL engine (built with CUDA).
bool nccl_engine_built();

// Whether this build has the Gloo engine (the portable build has none unless made with DD_GLOO_SRC).
bool gloo_engine_built();

// Why a Gloo run cannot happen in this build, for the user: "" when it has Gloo.
std::string gloo_missing_reason();

// `e` marked ErrorKind::timeout when its deadline has passed (a wait that gave up because time ran out),
// else unchanged: engines type their failures by what happened, never by the message text.
inline Error timeout_if_past(Error e, rendezvous::Deadline deadline) {
  if (rendezvous::Clock::now() >= deadline) e.kind = ErrorKind::timeout;
  return e;
}

}  // namespace dd::comm
