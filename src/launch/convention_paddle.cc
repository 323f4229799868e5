// PaddlePaddle's convention (launcher_convention.h): what `python -m paddle.distributed.launch` gives each
// trainer (PADDLE_TRAINER_ID, the endpoints of every trainer, FLAGS_selected_gpus), so that an unmodified
// Paddle script finds its rank and peers. Always on: its names are its own.
#include <string>
#include <vector>

#include "launch/launcher_convention.h"

namespace dd::launch {

namespace {

constexpr std::string_view kPaddleVars[] = {
    "PADDLE_TRAINER_ID",       "PADDLE_TRAINERS_NUM", "PADDLE_TRAINER_ENDPOINTS",
    "PADDLE_CURRENT_ENDPOINT", "PADDLE_RANK_IN_NODE", "PADDLE_LOCAL_SIZE",
    "PADDLE_NNODES",           "FLAGS_selected_gpus"};

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

// FLAGS_selected_gpus is the GPU's index among the devices the worker sees (Paddle's launcher gives "the
// device id relative to the visible devices"): 0 when --bind-gpu left it one GPU, else its local rank.
EnvPairs paddle_worker_env(const ConventionInput& in) {
  const JobLayout& job = in.job;
  const int world = job.world_size();
  const int rank = in.rank(), nnodes = in.nnodes(), local_world = in.local_world();
  const auto s = [](auto v) { return std::to_string(v); };
  const auto eps = trainer_endpoints(job);
  return {
      {"PADDLE_TRAINER_ID", s(rank)},
      {"PADDLE_TRAINERS_NUM", s(world)},
      {"PADDLE_TRAINER_ENDPOINTS", comma_joined(eps)},
      {"PADDLE_CURRENT_ENDPOINT", rank < int(eps.size()) ? eps[rank] : ""},
      {"PADDLE_RANK_IN_NODE", s(in.local_rank)},
      {"PADDLE_LOCAL_SIZE", s(local_world)},
      {"PADDLE_NNODES", s(nnodes)},
      {"FLAGS_selected_gpus", in.opt.bind_gpu ? "0" : s(in.local_rank)},
  };
}

}  // namespace

extern const LauncherConvention kPaddleConvention{
    .name = "paddle", .flag = "", .worker_env = paddle_worker_env, .own_vars = kPaddleVars};

}  // namespace dd::launch
