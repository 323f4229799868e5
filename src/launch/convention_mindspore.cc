// MindSpore's convention (launcher_convention.h), on with --mindspore: msrun's variables for each worker and
// for its scheduler (mindspore_env.h), which launch starts beside the workers on node rank 0, and the
// report's part about that scheduler (mindspore_report.cc). The values are the ones launch already agreed
// on for torchrun's (MASTER_ADDR, MASTER_PORT, the global rank).
#include <algorithm>
#include <cmath>

#include "launch/launcher_convention.h"
#include "launch/mindspore_env.h"
#include "launch/report_parts.h"

namespace dd::launch {

namespace {

// What the scheduler and every worker must agree on, or MindSpore's networking fails.
EnvPairs shared_vars(const JobLayout& job, const MindSporeOptions& opt) {
  const std::string world = std::to_string(job.world_size());
  EnvPairs env = {
      {"MS_WORKER_NUM", world},
      {"MS_SCHED_HOST", job.master_addr},
      // No torch store serves MASTER_PORT in a MindSpore job: the scheduler binds it.
      {"MS_SCHED_PORT", std::to_string(job.master_port)},
      {"RANK_SIZE", world},
  };
  if (!opt.user_has_topo_timeout)
    env.emplace_back("MS_TOPO_TIMEOUT", std::to_string(mindspore_topo_timeout_s(opt.hang_timeout_s)));
  return env;
}

}  // namespace

int mindspore_topo_timeout_s(double hang_timeout_s) {
  if (!(hang_timeout_s > 0)) return kMindSporeTopoTimeoutS;
  return int(std::min(std::ceil(hang_timeout_s), 1e9));
}

EnvPairs mindspore_worker_env(const JobLayout& job, int node_rank, int local_rank,
                              const MindSporeOptions& opt) {
  if (!opt.on) return {};
  const std::string rank = std::to_string(job.first_rank(node_rank) + local_rank);
  EnvPairs env = {{"MS_ROLE", "MS_WORKER"}, {"MS_NODE_ID", rank}, {"RANK_ID", rank}};
  for (auto& kv : shared_vars(job, opt)) env.push_back(std::move(kv));
  return env;
}

EnvPairs mindspore_scheduler_env(const JobLayout& job, const MindSporeOptions& opt) {
  if (!opt.on) return {};
  EnvPairs env = {{"MS_ROLE", "MS_SCHED"}, {"RANK_ID", "0"}};
  for (auto& kv : shared_vars(job, opt)) env.push_back(std::move(kv));
  return env;
}

namespace {

constexpr std::string_view kMindSporeVars[] = {"MS_ROLE",       "MS_WORKER_NUM",  "MS_SCHED_HOST",
                                               "MS_SCHED_PORT", "MS_NODE_ID",     "RANK_ID",
                                               "RANK_SIZE",     "MS_TOPO_TIMEOUT"};

MindSporeOptions options_of(const WorkerEnvOptions& opt) {
  return {.on = true,
          .hang_timeout_s = opt.hang_timeout_s,
          .user_has_topo_timeout = opt.user_set("MS_TOPO_TIMEOUT")};
}

EnvPairs worker_hook(const ConventionInput& in) {
  return mindspore_worker_env(in.job, in.node_rank, in.local_rank, options_of(in.opt));
}

EnvPairs scheduler_hook(const ConventionInput& in) {
  return mindspore_scheduler_env(in.job, options_of(in.opt));
}

constexpr CompanionProcess kScheduler{
    .role = "scheduler", .who = "MindSpore's scheduler", .env = scheduler_hook};

}  // namespace

extern const LauncherConvention kMindSporeConvention{
    .name = "mindspore",
    .flag = "--mindspore",
    .flag_help =
        "A MindSpore job: msrun's variables (MS_ROLE, MS_SCHED_HOST...) and, on node rank 0, its "
        "scheduler process",
    // MindSpore picks its GPU by the worker's position on the node: it needs every GPU visible.
    .every_gpu = true,
    .worker_env = worker_hook,
    .own_vars = kMindSporeVars,
    .companion = &kScheduler,
    .report = {.companion_failed = parts::scheduler_failed_finding,
               .companion_end = parts::scheduler_end_finding,
               .docs = parts::scheduler_finding_docs}};

}  // namespace dd::launch
