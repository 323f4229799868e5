// The environment each worker gets so that unmodified torchrun-style (PyTorch, accelerate) and Paddle scripts
// run: a pure function of the job layout. No I/O.
#pragma once
#include <string>
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
};

using EnvPairs = std::vector<std::pair<std::string, std::string>>;

// The variables set for one worker (laid over the launcher's own environment):
// RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE GROUP_RANK NODE_RANK GROUP_WORLD_SIZE ROLE_RANK ROLE_WORLD_SIZE
// ROLE_NAME MASTER_ADDR MASTER_PORT TORCHELASTIC_RESTART_COUNT TORCHELASTIC_MAX_RESTARTS TORCHELASTIC_RUN_ID
// TORCHELASTIC_USE_AGENT_STORE=False, PADDLE_TRAINER_ID PADDLE_TRAINERS_NUM PADDLE_TRAINER_ENDPOINTS
// PADDLE_CURRENT_ENDPOINT PADDLE_RANK_IN_NODE PADDLE_LOCAL_SIZE PADDLE_NNODES FLAGS_selected_gpus,
// CUDA_VISIBLE_DEVICES with bind_gpu, OMP_NUM_THREADS, PYTHONUNBUFFERED=1 (unless the user set it: the last
// line a worker printed must reach its log before a crash), DISTDOCTOR_LAUNCH_ATTEMPT.
EnvPairs worker_env(const JobLayout& job, int node_rank, int local_rank, const WorkerEnvOptions& opt);

// Names worker_env (and, with --mindspore, mindspore_env.h) may set: launch leaves them out when it compares
// environments across ranks/nodes.
bool is_launcher_var(const std::string& name);

}  // namespace dd::launch
