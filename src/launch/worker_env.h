// The environment each worker gets so that unmodified torchrun-style (PyTorch, accelerate), Paddle and
// MindSpore scripts run: every launcher convention that is on (launcher_convention.h) and launch's own
// variables, a pure function of the job layout. No I/O.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dd::launch {

// One node of the job as every node agent sees it after the rendezvous.
struct NodeSlot {
  int node_rank = 0;
  std::string host;        // hostname (for reports)
  std::string addr;        // address the other nodes reach it on (MASTER_ADDR when node rank 0)
  int nproc = 1;           // workers on this node
  std::vector<int> ports;  // one free port per worker (Paddle trainer endpoints)
};

// The whole job for one attempt.
struct JobLayout {
  std::vector<NodeSlot> nodes;  // by node rank
  std::string master_addr;      // MASTER_ADDR
  int master_port = 0;          // MASTER_PORT (free port chosen by node rank 0, or --job-port)
  std::string job_id;           // TORCHELASTIC_RUN_ID
  int attempt = 0;              // TORCHELASTIC_RESTART_COUNT
  int max_restarts = 0;         // TORCHELASTIC_MAX_RESTARTS
  int world_size() const;
  int first_rank(int node_rank) const;  // global rank of local rank 0 on that node (prefix sum of nproc)
};

struct WorkerEnvOptions {
  bool bind_gpu = false;              // --bind-gpu: CUDA_VISIBLE_DEVICES = one GPU per worker
  std::vector<std::string> gpu_ids;   // this node's visible GPUs in order (CUDA_VISIBLE_DEVICES entries,
                                      // or "0".."n-1" when it is unset); used by --bind-gpu
  bool set_omp_threads = true;        // OMP_NUM_THREADS=1 when more than one worker and the user set none
  bool user_has_omp_threads = false;  // OMP_NUM_THREADS already in the launcher's environment
  bool user_has_pythonunbuffered = false;
  std::vector<std::string> opted_in;   // conventions turned on by a flag: "mindspore" with --mindspore
  double hang_timeout_s = 0;           // the job's --hang-timeout (MindSpore's MS_TOPO_TIMEOUT follows it)
  std::vector<std::string> user_vars;  // names in the launcher's environment a convention leaves alone
  bool user_set(std::string_view name) const;
  bool opted(std::string_view convention) const;
};

using EnvPairs = std::vector<std::pair<std::string, std::string>>;

// The variables set for one worker (laid over the launcher's own environment): each convention's that is on
// (torchrun's RANK, LOCAL_RANK, MASTER_ADDR, TORCHELASTIC_*...; Paddle's PADDLE_TRAINER_*...; MindSpore's
// MS_* with --mindspore: convention_*.cc), then launch's own: CUDA_VISIBLE_DEVICES with bind_gpu,
// OMP_NUM_THREADS, PYTHONUNBUFFERED=1 (unless the user set it: the last line a worker printed must reach its
// log before a crash), DISTDOCTOR_LAUNCH_ATTEMPT.
EnvPairs worker_env(const JobLayout& job, int node_rank, int local_rank, const WorkerEnvOptions& opt);

// Names worker_env (and a companion process) may set, every convention's included: launch leaves them out
// when it compares environments across ranks/nodes.
bool is_launcher_var(const std::string& name);

}  // namespace dd::launch
