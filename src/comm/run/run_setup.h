// The supervisor's set-up of a collective run: which global ranks run on this node and in which worker
// processes, whether this node can run them (from its facts), the Plan handed to the workers and the
// command line and environment of each worker.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "comm/engine/run_options.h"
#include "comm/run/plan.h"
#include "probe/facts.h"
#include "process/worker_supervisor.h"
#include "report/finding.h"

namespace dd::comm {

struct RunLayout {
  int world = 0;
  std::vector<int> local;                // global ranks run on this node
  std::vector<std::vector<int>> groups;  // ranks served by each worker process
};

// Ranks on this node: opt.nproc, else one per visible GPU (nccl) or 2 (gloo).
int local_rank_count(const RunOptions& opt, const probe::NodeFacts& facts);

RunLayout run_layout(const RunOptions& opt, const probe::NodeFacts& facts);

// A failing finding when the layout cannot run here (no GPU, more ranks than CUDA_VISIBLE_DEVICES shows).
std::optional<report::Finding> layout_problem(const RunOptions& opt, const RunLayout& layout,
                                              const probe::NodeFacts& facts);

// The plan of every worker: the options with the node's defaults filled in (Gloo interface from the facts).
Plan make_plan(const RunOptions& opt, const RunLayout& layout, const probe::NodeFacts& facts,
               const std::string& run_dir);

// One spec per worker: `<wrap...> <exe> bench --as-worker PLAN --worker-ranks R`, its log file and the
// settings it gets on top of the inherited environment (NCCL debug log capture, opt.env, the store token).
std::vector<process::WorkerSpec> worker_specs(const RunOptions& opt, const RunLayout& layout,
                                              const probe::NodeFacts& facts, const std::string& run_dir,
                                              const std::string& plan_path, const std::string& self_exe);

}  // namespace dd::comm
