// Cluster rule: the same GPU count and model on every node, and no more processes per node than GPUs.
#include <fmt/format.h>

#include "rules/cluster_rule.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

int usable_gpus(const probe::NodeFacts& f) {
  if (f.cuda.device_count >= 0 && f.cuda.driver_loaded) return f.cuda.device_count;
  return static_cast<int>(f.gpu.gpus.size());
}

std::vector<Finding> check_shape(const ClusterView& v) {
  std::map<std::string, std::vector<std::string>> counts, models, procs;
  std::vector<Finding> out;
  for (const auto& n : v.nodes) {
    std::string l = node_label(n);
    procs[std::to_string(n.ranks.size())].push_back(l);
    if (!n.has_facts || !n.facts.gpu.nvml_loaded) continue;
    int g = usable_gpus(n.facts);
    counts[std::to_string(g)].push_back(l);
    std::map<std::string, int> m;
    for (const auto& gpu : n.facts.gpu.gpus) m[gpu.name]++;
    std::string desc;
    for (const auto& [name, c] : m) desc += fmt::format("{}{}", desc.empty() ? "" : " + ", name);
    models[desc.empty() ? "no GPU" : desc].push_back(l);
    if (!v.by_hand && static_cast<int>(n.ranks.size()) > g)
      out.push_back(
          Finding{"cluster.shape.procs_gt_gpus",
                  Severity::fail,
                  fmt::format("{} runs {} processes but has {} usable GPU(s)", l, n.ranks.size(), g),
                  {fmt::format("CUDA_VISIBLE_DEVICES={}",
                               n.facts.cuda.visible_devices_set ? n.facts.cuda.visible_devices : "(unset)")},
                  "Start one process per GPU (--nproc-per-node / -npernode / --ntasks-per-node equal "
                  "to the GPU count), or give each process its own GPU with CUDA_VISIBLE_DEVICES."});
  }
  if (counts.size() > 1)
    out.push_back(Finding{"cluster.shape.gpu_count",
                          Severity::warn,
                          "GPU count differs across nodes",
                          {describe_groups(counts)},
                          "Jobs that assume the same GPUs per node (most launchers) misplace ranks; use "
                          "identical nodes or set the per-node process count explicitly."});
  if (models.size() > 1)
    out.push_back(Finding{"cluster.shape.gpu_model",
                          Severity::warn,
                          "GPU models differ across nodes",
                          {describe_groups(models)},
                          "Mixed GPU models run at the speed of the slowest and may choose different NCCL "
                          "algorithms per node; prefer identical nodes for one job."});
  if (procs.size() > 1 && !v.by_hand)
    out.push_back(Finding{"cluster.shape.procs_per_node",
                          Severity::info,
                          "processes per node differ across nodes",
                          {describe_groups(procs)}});
  if (out.empty())
    out.push_back(Finding{
        "cluster.shape.ok", Severity::ok,
        counts.empty() ? fmt::format("{} nodes (no GPU information to compare)", v.nodes.size())
                       : fmt::format("{} nodes with {} GPU(s) each", v.nodes.size(), counts.begin()->first)});
  return out;
}

}  // namespace

ClusterRule cluster_shape_rule() {
  return {
      "cluster.shape",
      check_shape,
      {{"cluster.shape.procs_gt_gpus", "More processes than GPUs on a node",
        "More ranks run on this node than it has usable GPUs, so some ranks share a GPU. NCCL refuses "
        "two ranks on one GPU ('Duplicate GPU detected'), and memory runs out."},
       {"cluster.shape.gpu_count", "GPU count differs across nodes",
        "Nodes of one job have different numbers of (visible) GPUs."},
       {"cluster.shape.gpu_model", "GPU models differ across nodes", "Nodes of one job have different GPUs."},
       {"cluster.shape.procs_per_node", "Processes per node differ",
        "The launcher placed uneven rank counts."},
       {"cluster.shape.ok", "Node shapes agree", "Same GPU count and model everywhere."}}};
}

}  // namespace dd::rules
