// DeepSpeed's convention (launcher_convention.h): what its per-node launcher (deepspeed.launcher.launch)
// adds to torchrun's names for each worker: CROSS_RANK (this node's rank), CROSS_SIZE (the number of nodes)
// and LOCAL_SIZE (the workers on this node), which scripts written for the `deepspeed` command read. RANK,
// LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT are torchrun's (convention_torchrun.cc). Always on: its
// names are its own.
#include "launch/launcher_convention.h"

namespace dd::launch {

namespace {

constexpr std::string_view kDeepSpeedVars[] = {"CROSS_RANK", "CROSS_SIZE", "LOCAL_SIZE"};

EnvPairs deepspeed_worker_env(const ConventionInput& in) {
  return {{"CROSS_RANK", std::to_string(in.node_rank)},
          {"CROSS_SIZE", std::to_string(in.nnodes())},
          {"LOCAL_SIZE", std::to_string(in.local_world())}};
}

}  // namespace

extern const LauncherConvention kDeepSpeedConvention{
    .name = "deepspeed", .flag = "", .worker_env = deepspeed_worker_env, .own_vars = kDeepSpeedVars};

}  // namespace dd::launch
