// Tests of the per-worker environment: torchrun and Paddle names, ranks across uneven nodes, endpoints
// (IPv6 in brackets), --bind-gpu, and the launcher-variable list.
#include "launch/worker_env.h"

#include <gtest/gtest.h>

#include <map>

namespace dd::launch {
namespace {

JobLayout two_uneven_nodes() {
  JobLayout job;
  job.nodes = {{0, "n0", "198.18.0.1", 2, {7001, 7002}}, {1, "n1", "198.18.0.2", 3, {7101, 7102, 7103}}};
  job.master_addr = "198.18.0.1";
  job.master_port = 29500;
  job.job_id = "job42";
  job.attempt = 1;
  job.max_restarts = 3;
  return job;
}

std::map<std::string, std::string> as_map(const EnvPairs& env) {
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : env) {
    EXPECT_EQ(m.count(k), 0u) << "set twice: " << k;
    m[k] = v;
  }
  return m;
}

TEST(WorkerEnv, LayoutSumsUnevenNodes) {
  const auto job = two_uneven_nodes();
  EXPECT_EQ(job.world_size(), 5);
  EXPECT_EQ(job.first_rank(0), 0);
  EXPECT_EQ(job.first_rank(1), 2);
  EXPECT_EQ(job.first_rank(2), 5);
}

TEST(WorkerEnv, TorchrunNames) {
  auto e = as_map(worker_env(two_uneven_nodes(), 1, 2, {}));
  EXPECT_EQ(e["RANK"], "4");
  EXPECT_EQ(e["LOCAL_RANK"], "2");
  EXPECT_EQ(e["WORLD_SIZE"], "5");
  EXPECT_EQ(e["LOCAL_WORLD_SIZE"], "3");
  EXPECT_EQ(e["GROUP_RANK"], "1");
  EXPECT_EQ(e["NODE_RANK"], "1");
  EXPECT_EQ(e["GROUP_WORLD_SIZE"], "2");
  EXPECT_EQ(e["ROLE_RANK"], "4");
  EXPECT_EQ(e["ROLE_WORLD_SIZE"], "5");
  EXPECT_EQ(e["ROLE_NAME"], "default");
  EXPECT_EQ(e["MASTER_ADDR"], "198.18.0.1");
  EXPECT_EQ(e["MASTER_PORT"], "29500");
  EXPECT_EQ(e["TORCHELASTIC_RESTART_COUNT"], "1");
  EXPECT_EQ(e["TORCHELASTIC_MAX_RESTARTS"], "3");
  EXPECT_EQ(e["TORCHELASTIC_RUN_ID"], "job42");
  EXPECT_EQ(e["TORCHELASTIC_USE_AGENT_STORE"], "False");
  EXPECT_EQ(e["DISTDOCTOR_LAUNCH_ATTEMPT"], "1");
  EXPECT_EQ(e["PYTHONUNBUFFERED"], "1");
  EXPECT_EQ(e["OMP_NUM_THREADS"], "1");
}

TEST(WorkerEnv, PaddleNames) {
  auto e = as_map(worker_env(two_uneven_nodes(), 1, 0, {}));
  EXPECT_EQ(e["PADDLE_TRAINER_ID"], "2");
  EXPECT_EQ(e["PADDLE_TRAINERS_NUM"], "5");
  EXPECT_EQ(e["PADDLE_TRAINER_ENDPOINTS"],
            "198.18.0.1:7001,198.18.0.1:7002,198.18.0.2:7101,198.18.0.2:7102,198.18.0.2:7103");
  EXPECT_EQ(e["PADDLE_CURRENT_ENDPOINT"], "198.18.0.2:7101");
  EXPECT_EQ(e["PADDLE_RANK_IN_NODE"], "0");
  EXPECT_EQ(e["PADDLE_LOCAL_SIZE"], "3");
  EXPECT_EQ(e["PADDLE_NNODES"], "2");
  EXPECT_EQ(e["FLAGS_selected_gpus"], "0");
  EXPECT_EQ(as_map(worker_env(two_uneven_nodes(), 1, 2, {}))["FLAGS_selected_gpus"], "2");
  EXPECT_EQ(e.count("CUDA_VISIBLE_DEVICES"), 0u);
}

TEST(WorkerEnv, Ipv6EndpointsInBrackets) {
  JobLayout job;
  job.nodes = {{0, "a", "fd00::1", 1, {6170}}, {1, "b", "[fd00::2]", 1, {6171}}};
  job.master_addr = "fd00::1";
  auto e = as_map(worker_env(job, 0, 0, {}));
  EXPECT_EQ(e["PADDLE_TRAINER_ENDPOINTS"], "[fd00::1]:6170,[fd00::2]:6171");
  EXPECT_EQ(e["PADDLE_CURRENT_ENDPOINT"], "[fd00::1]:6170");
  EXPECT_EQ(e["MASTER_ADDR"], "fd00::1");  // torch takes the bare address
}

TEST(WorkerEnv, MissingPortsGiveZeroNotACrash) {
  JobLayout job;
  job.nodes = {{0, "a", "198.18.0.1", 2, {}}};
  auto e = as_map(worker_env(job, 0, 1, {}));
  EXPECT_EQ(e["PADDLE_TRAINER_ENDPOINTS"], "198.18.0.1:0,198.18.0.1:0");
  EXPECT_EQ(e["PADDLE_CURRENT_ENDPOINT"], "198.18.0.1:0");
}

TEST(WorkerEnv, BindGpuGivesOneDevicePerWorker) {
  WorkerEnvOptions opt;
  opt.bind_gpu = true;
  opt.gpu_ids = {"4", "5", "6"};
  auto e = as_map(worker_env(two_uneven_nodes(), 1, 1, opt));
  EXPECT_EQ(e["CUDA_VISIBLE_DEVICES"], "5");
  EXPECT_EQ(e["FLAGS_selected_gpus"], "0");
  opt.gpu_ids = {"GPU-aaaa", "GPU-bbbb"};  // UUIDs pass through; fewer GPUs than workers wrap round
  EXPECT_EQ(as_map(worker_env(two_uneven_nodes(), 1, 2, opt))["CUDA_VISIBLE_DEVICES"], "GPU-aaaa");
  opt.gpu_ids.clear();  // no GPU at all: nothing to bind
  EXPECT_EQ(as_map(worker_env(two_uneven_nodes(), 1, 2, opt)).count("CUDA_VISIBLE_DEVICES"), 0u);
}

TEST(WorkerEnv, UserSettingsWin) {
  WorkerEnvOptions opt;
  opt.user_has_omp_threads = true;
  opt.user_has_pythonunbuffered = true;
  auto e = as_map(worker_env(two_uneven_nodes(), 0, 0, opt));
  EXPECT_EQ(e.count("OMP_NUM_THREADS"), 0u);
  EXPECT_EQ(e.count("PYTHONUNBUFFERED"), 0u);
  opt = {};
  opt.set_omp_threads = false;
  EXPECT_EQ(as_map(worker_env(two_uneven_nodes(), 0, 0, opt)).count("OMP_NUM_THREADS"), 0u);
  JobLayout single;
  single.nodes = {{0, "a", "127.0.0.1", 1, {7000}}};
  EXPECT_EQ(as_map(worker_env(single, 0, 0, {})).count("OMP_NUM_THREADS"), 0u);  // one worker: no cap
}

TEST(WorkerEnv, EveryNameSetIsALauncherVar) {
  WorkerEnvOptions opt;
  opt.bind_gpu = true;
  opt.gpu_ids = {"0"};
  for (const auto& [k, v] : worker_env(two_uneven_nodes(), 1, 1, opt)) EXPECT_TRUE(is_launcher_var(k)) << k;
  EXPECT_FALSE(is_launcher_var("NCCL_SOCKET_IFNAME"));
  EXPECT_FALSE(is_launcher_var("PATH"));
  EXPECT_FALSE(is_launcher_var("rank"));
}

}  // namespace
}  // namespace dd::launch
