// torchrun's convention (launcher_convention.h): what torch.distributed.run gives each worker, so that an
// unmodified PyTorch (or accelerate) script finds its rank, world and store. Always on.
#include "launch/launcher_convention.h"

namespace dd::launch {

namespace {

constexpr std::string_view kTorchrunVars[] = {"RANK",
                                              "LOCAL_RANK",
                                              "WORLD_SIZE",
                                              "LOCAL_WORLD_SIZE",
                                              "GROUP_RANK",
                                              "NODE_RANK",
                                              "GROUP_WORLD_SIZE",
                                              "ROLE_RANK",
                                              "ROLE_WORLD_SIZE",
                                              "ROLE_NAME",
                                              "MASTER_ADDR",
                                              "MASTER_PORT",
                                              "TORCHELASTIC_RESTART_COUNT",
                                              "TORCHELASTIC_MAX_RESTARTS",
                                              "TORCHELASTIC_RUN_ID",
                                              "TORCHELASTIC_USE_AGENT_STORE"};

// RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE GROUP_RANK NODE_RANK GROUP_WORLD_SIZE ROLE_RANK ROLE_WORLD_SIZE
// ROLE_NAME MASTER_ADDR MASTER_PORT TORCHELASTIC_RESTART_COUNT TORCHELASTIC_MAX_RESTARTS TORCHELASTIC_RUN_ID
// TORCHELASTIC_USE_AGENT_STORE=False.
EnvPairs torchrun_worker_env(const ConventionInput& in) {
  const JobLayout& job = in.job;
  const int world = job.world_size();
  const int rank = in.rank(), nnodes = in.nnodes(), local_world = in.local_world();
  const auto s = [](auto v) { return std::to_string(v); };
  return {
      {"RANK", s(rank)},
      {"LOCAL_RANK", s(in.local_rank)},
      {"WORLD_SIZE", s(world)},
      {"LOCAL_WORLD_SIZE", s(local_world)},
      {"GROUP_RANK", s(in.node_rank)},
      {"NODE_RANK", s(in.node_rank)},
      {"GROUP_WORLD_SIZE", s(nnodes)},
      {"ROLE_RANK", s(rank)},  // one role: the role rank is the global rank
      {"ROLE_WORLD_SIZE", s(world)},
      {"ROLE_NAME", "default"},
      {"MASTER_ADDR", job.master_addr},
      {"MASTER_PORT", s(job.master_port)},
      {"TORCHELASTIC_RESTART_COUNT", s(job.attempt)},
      {"TORCHELASTIC_MAX_RESTARTS", s(job.max_restarts)},
      {"TORCHELASTIC_RUN_ID", job.job_id},
      // No agent store listens on MASTER_PORT: rank 0's process group creates the TCPStore there itself.
      {"TORCHELASTIC_USE_AGENT_STORE", "False"},
  };
}

}  // namespace

extern const LauncherConvention kTorchrunConvention{
    .name = "torchrun", .flag = "", .worker_env = torchrun_worker_env, .own_vars = kTorchrunVars};

}  // namespace dd::launch
