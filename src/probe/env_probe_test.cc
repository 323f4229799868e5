// Environment filter: wanted prefixes and names, secrets never.
#include "probe/env_probe.h"

#include <gtest/gtest.h>

namespace dd::probe {
namespace {

TEST(EnvProbe, FilterKeepsJobVariablesDropsSecrets) {
  EnvMap all = {{"NCCL_SOCKET_IFNAME", "eth0"},
                {"CUDA_VISIBLE_DEVICES", "0,1"},
                {"MASTER_ADDR", "n0"},
                {"RANK", "3"},
                {"SLURM_JOB_ID", "9"},
                {"HOME", "/root"},
                {"PATH", "/bin"},
                {"NCCL_API_KEY", "s3cr3t"},
                {"WANDB_API_KEY", "x"},
                {"HF_TOKEN", "t"},
                {"TORCH_SECRET_THING", "y"},
                {"RANKING", "no"},
                {"LD_LIBRARY_PATH", "/x"},
                {"PMIX_RANK", "0"},
                {"UCX_TLS", "rc"}};
  EnvMap f = filter_env(all);
  EnvMap want = {{"NCCL_SOCKET_IFNAME", "eth0"},
                 {"CUDA_VISIBLE_DEVICES", "0,1"},
                 {"MASTER_ADDR", "n0"},
                 {"RANK", "3"},
                 {"SLURM_JOB_ID", "9"},
                 {"LD_LIBRARY_PATH", "/x"},
                 {"PMIX_RANK", "0"},
                 {"UCX_TLS", "rc"}};
  EXPECT_EQ(f, want);
}

// gpu_busy decides that `check` runs inside a launched job from these (PADDLE_TRAINER_ID, MS_ROLE): the
// filter dropped Paddle's and MindSpore's names, so a check inside such a job never saw them.
TEST(EnvProbe, FilterKeepsEveryLaunchersVariables) {
  EnvMap all = {{"PADDLE_TRAINER_ID", "1"}, {"MS_ROLE", "MS_WORKER"},     {"RANK_ID", "1"},
                {"GROUP_RANK", "0"},        {"FLAGS_selected_gpus", "1"}, {"ROLE_NAME", "default"},
                {"MS_SECRET_KEY", "k"},     {"PADDLE_X_TOKEN", "t"}};
  EnvMap want = {{"PADDLE_TRAINER_ID", "1"}, {"MS_ROLE", "MS_WORKER"},     {"RANK_ID", "1"},
                 {"GROUP_RANK", "0"},        {"FLAGS_selected_gpus", "1"}, {"ROLE_NAME", "default"}};
  EXPECT_EQ(filter_env(all), want);
}

TEST(EnvProbe, GetAndIsSet) {
  EnvMap e = {{"A", ""}};
  bool set = false;
  EXPECT_EQ(env_get(e, "A", &set), "");
  EXPECT_TRUE(set);
  EXPECT_EQ(env_get(e, "B", &set), "");
  EXPECT_FALSE(set);
}

}  // namespace
}  // namespace dd::probe
