// MindSpore's dynamic-cluster variables, as its launcher msrun sets them, for `launch --mindspore`: each
// worker's (MS_ROLE=MS_WORKER, its rank) and the scheduler's (MS_ROLE=MS_SCHED), computed from the job layout
// alone. No I/O. Their hooks, and the names is_launcher_var knows: convention_mindspore.cc.
#pragma once
#include <string>

#include "launch/worker_env.h"

namespace dd::launch {

inline constexpr int kMindSporeTopoTimeoutS = 600;  // msrun's --cluster_time_out default

struct MindSporeOptions {
  bool on = false;                     // --mindspore (node rank 0's setting rules the job)
  double hang_timeout_s = 0;           // the job's --hang-timeout: MS_TOPO_TIMEOUT follows it when set
  bool user_has_topo_timeout = false;  // MS_TOPO_TIMEOUT already in the launcher's environment: left alone
};

// MS_TOPO_TIMEOUT: --hang-timeout rounded up to whole seconds when set (launch declares a silent job hung
// then anyway), else msrun's 600.
int mindspore_topo_timeout_s(double hang_timeout_s);

// A worker's: MS_ROLE=MS_WORKER, MS_WORKER_NUM (workers of the job), MS_SCHED_HOST (MASTER_ADDR),
// MS_SCHED_PORT (MASTER_PORT), MS_NODE_ID and RANK_ID (global rank), RANK_SIZE, MS_TOPO_TIMEOUT. Nothing when
// !opt.on.
EnvPairs mindspore_worker_env(const JobLayout& job, int node_rank, int local_rank,
                              const MindSporeOptions& opt);

// The scheduler's (node rank 0 starts it, the job's command once more): MS_ROLE=MS_SCHED, RANK_ID=0 and the
// same MS_WORKER_NUM, MS_SCHED_HOST, MS_SCHED_PORT, RANK_SIZE, MS_TOPO_TIMEOUT (without MS_WORKER_NUM it
// would size the cluster 0). Nothing when !opt.on.
EnvPairs mindspore_scheduler_env(const JobLayout& job, const MindSporeOptions& opt);

}  // namespace dd::launch
