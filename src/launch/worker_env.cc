// The per-worker environment: torchrun's names (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, TORCHELASTIC_*...)
// and Paddle's (PADDLE_TRAINER_*, FLAGS_selected_gpus), computed from the job layout alone.
#include "launch/worker_env.h"

#include <algorithm>

#include "launch/mindspore_env.h"

namespace dd::launch {

int JobLayout::world_size() const {
  int n = 0;
  for (const auto& node : nodes) n += node.nproc;
  return n;
}

int JobLayout::first_rank(int node_rank) const {
  int r = 0;
  for (int i = 0; i < node_rank && i < int(nodes.size()); ++i) r += nodes[i].nproc;
  return r;
}

namespace {

// "addr:port", with an IPv6 address in brackets ("[fd00::1]:6170") as Paddle and URLs expect.
std::string endpoint_of(const std::string& addr, int port) {
  const bool ipv6 = !addr.empty() && addr.find(':') != std::string::npos && addr.front() != '[';
  return (ipv6 ? "[" + addr + "]" : addr) + ":" + std::to_string(port);
}

// Every rank's endpoint in rank order; a node that published fewer ports than workers gets port 0 for the
// rest (the flow publishes one per worker; Paddle then fails to bind, which names the problem).
std::vector<std::string> trainer_endpoints(const JobLayout& job) {
  std::vector<std::string> eps;
  for (const auto& node : job.nodes)
    for (int l = 0; l < node.nproc; ++l)
      eps.push_back(endpoint_of(node.addr, l < int(node.ports.size()) ? node.ports[l] : 0));
  return eps;
}

std::string comma_joined(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& x : items) s += (s.empty() ? "" : ",") + x;
  return s;
}

// FLAGS_selected_gpus is the GPU's index among the devices the worker sees (Paddle's launcher gives
// "the device id relative to the visible devices"): 0 when --bind-gpu left it one GPU, else its local rank.
// --bind-gpu with fewer GPUs than workers wraps round (two workers share a GPU): the preflight reports too
// few GPUs before any worker starts, so the env stays a total function of the layout.
void add_gpu_vars(EnvPairs& env, int local_rank, const WorkerEnvOptions& opt) {
  if (opt.bind_gpu) {
    if (!opt.gpu_ids.empty())
      env.emplace_back("CUDA_VISIBLE_DEVICES", opt.gpu_ids[local_rank % opt.gpu_ids.size()]);
    env.emplace_back("FLAGS_selected_gpus", "0");
  } else {
    env.emplace_back("FLAGS_selected_gpus", std::to_string(local_rank));
  }
}

}  // namespace

EnvPairs worker_env(const JobLayout& job, int node_rank, int local_rank, const WorkerEnvOptions& opt) {
  const int world = job.world_size();
  const int rank = job.first_rank(node_rank) + local_rank;
  const int nnodes = int(job.nodes.size());
  const int local_world = node_rank >= 0 && node_rank < nnodes ? job.nodes[node_rank].nproc : 1;
  const auto s = [](auto v) { return std::to_string(v); };
  EnvPairs env = {
      {"RANK", s(rank)},
      {"LOCAL_RANK", s(local_rank)},
      {"WORLD_SIZE", s(world)},
      {"LOCAL_WORLD_SIZE", s(local_world)},
      {"GROUP_RANK", s(node_rank)},
      {"NODE_RANK", s(node_rank)},
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
  const auto eps = trainer_endpoints(job);
  env.insert(env.end(), {
                            {"PADDLE_TRAINER_ID", s(rank)},
                            {"PADDLE_TRAINERS_NUM", s(world)},
                            {"PADDLE_TRAINER_ENDPOINTS", comma_joined(eps)},
                            {"PADDLE_CURRENT_ENDPOINT", rank < int(eps.size()) ? eps[rank] : ""},
                            {"PADDLE_RANK_IN_NODE", s(local_rank)},
                            {"PADDLE_LOCAL_SIZE", s(local_world)},
                            {"PADDLE_NNODES", s(nnodes)},
                        });
  add_gpu_vars(env, local_rank, opt);
  if (opt.set_omp_threads && !opt.user_has_omp_threads && local_world > 1)
    env.emplace_back("OMP_NUM_THREADS", "1");
  if (!opt.user_has_pythonunbuffered) env.emplace_back("PYTHONUNBUFFERED", "1");
  env.emplace_back("DISTDOCTOR_LAUNCH_ATTEMPT", s(job.attempt));
  return env;
}

bool is_launcher_var(const std::string& name) {
  // clang-format off
  static const char* const kNames[] = {
      "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "NODE_RANK", "GROUP_WORLD_SIZE",
      "ROLE_RANK", "ROLE_WORLD_SIZE", "ROLE_NAME", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RESTART_COUNT",
      "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_USE_AGENT_STORE", "PADDLE_TRAINER_ID",
      "PADDLE_TRAINERS_NUM", "PADDLE_TRAINER_ENDPOINTS", "PADDLE_CURRENT_ENDPOINT", "PADDLE_RANK_IN_NODE",
      "PADDLE_LOCAL_SIZE", "PADDLE_NNODES", "FLAGS_selected_gpus", "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS",
      "PYTHONUNBUFFERED", "DISTDOCTOR_LAUNCH_ATTEMPT"};
  // clang-format on
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames) || is_mindspore_var(name);
}

}  // namespace dd::launch
