// The per-worker environment: every launcher convention that is on (launcher_convention.h: torchrun's,
// Paddle's, MindSpore's...) and launch's own variables, computed from the job layout alone.
#include "launch/worker_env.h"

#include <algorithm>

#include "launch/launcher_convention.h"

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

bool WorkerEnvOptions::user_set(std::string_view name) const {
  return std::find(user_vars.begin(), user_vars.end(), name) != user_vars.end();
}

bool WorkerEnvOptions::opted(std::string_view convention) const {
  return std::find(opted_in.begin(), opted_in.end(), convention) != opted_in.end();
}

namespace {

// Names launch sets itself, whichever conventions are on.
constexpr std::string_view kLaunchOwn[] = {"CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "PYTHONUNBUFFERED",
                                           "DISTDOCTOR_LAUNCH_ATTEMPT"};

// --bind-gpu with fewer GPUs than workers wraps round (two workers share a GPU): the preflight reports too
// few GPUs before any worker starts, so the env stays a total function of the layout.
EnvPairs launch_own_env(const JobLayout& job, int node_rank, int local_rank, const WorkerEnvOptions& opt) {
  const int nnodes = int(job.nodes.size());
  const int local_world = node_rank >= 0 && node_rank < nnodes ? job.nodes[node_rank].nproc : 1;
  EnvPairs env;
  if (opt.bind_gpu && !opt.gpu_ids.empty())
    env.emplace_back("CUDA_VISIBLE_DEVICES", opt.gpu_ids[local_rank % opt.gpu_ids.size()]);
  if (opt.set_omp_threads && !opt.user_has_omp_threads && local_world > 1)
    env.emplace_back("OMP_NUM_THREADS", "1");
  if (!opt.user_has_pythonunbuffered) env.emplace_back("PYTHONUNBUFFERED", "1");
  env.emplace_back("DISTDOCTOR_LAUNCH_ATTEMPT", std::to_string(job.attempt));
  return env;
}

}  // namespace

EnvPairs worker_env(const JobLayout& job, int node_rank, int local_rank, const WorkerEnvOptions& opt) {
  EnvPairs env;
  const ConventionInput in{job, node_rank, local_rank, opt};
  for (const LauncherConvention* c : launcher_conventions())
    if (convention_on(*c, opt))
      for (auto& kv : c->worker_env(in)) env.push_back(std::move(kv));
  for (auto& kv : launch_own_env(job, node_rank, local_rank, opt)) env.push_back(std::move(kv));
  return env;
}

bool is_launcher_var(const std::string& name) {
  if (std::find(std::begin(kLaunchOwn), std::end(kLaunchOwn), name) != std::end(kLaunchOwn)) return true;
  for (const LauncherConvention* c : launcher_conventions())
    if (std::find(c->own_vars.begin(), c->own_vars.end(), name) != c->own_vars.end()) return true;
  return false;
}

}  // namespace dd::launch
