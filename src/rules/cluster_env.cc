// Cluster rule: NCCL_*, CUDA_*, GLOO_*, UCX_*, OMPI_* variables and LD_LIBRARY_PATH / PYTHONPATH must agree
// across nodes; a variable set on some nodes only is the classic "mpirun without -x" failure.
#include <fmt/format.h>

#include <set>

#include "rules/cluster_rule.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

// Variables that differ per rank or per node by design; comparing them would only add noise.
bool per_process(const std::string& k) {
  if (k.rfind("OMPI_", 0) != 0) return false;
  for (const char* s : {"RANK", "VPID", "URI", "LOCAL", "NODE", "PID", "FILE_LOCATION", "HOSTNAME", "JOBID",
                        "NUM_PROCS", "APP_CTX", "ARGV", "COMMAND", "UNIVERSE", "CPU", "ess_base", "PMIX"})
    if (k.find(s) != std::string::npos) return true;
  return false;
}

bool compared(const std::string& k) {
  if (k == "LD_LIBRARY_PATH" || k == "PYTHONPATH") return true;
  for (const char* p : {"NCCL_", "CUDA_", "GLOO_", "UCX_", "OMPI_"})
    if (k.rfind(p, 0) == 0) return !per_process(k);
  return false;
}

std::vector<Finding> check_env(const ClusterView& v) {
  std::vector<const ClusterNode*> nodes;
  std::set<std::string> keys;
  for (const auto& n : v.nodes)
    if (n.has_facts) {
      nodes.push_back(&n);
      for (const auto& [k, _] : n.facts.env)
        if (compared(k)) keys.insert(k);
    }
  std::vector<Finding> out;
  if (nodes.size() < 2) return out;
  int same = 0;
  for (const auto& k : keys) {
    std::map<std::string, std::vector<std::string>> groups;
    for (const auto* n : nodes) {
      auto it = n->facts.env.find(k);
      groups[it == n->facts.env.end() ? std::string("\x01unset") : "=" + it->second].push_back(
          node_label(*n));
    }
    if (groups.size() == 1) {
      same++;
      continue;
    }
    bool some_unset = groups.count("\x01unset") > 0;
    Finding f{"cluster.env.diff", Severity::warn,
              some_unset ? fmt::format("{} is set on some nodes and not others", k)
                         : fmt::format("{} differs across nodes", k)};
    for (const auto& [val, labels] : groups)
      f.evidence.push_back(val == "\x01unset" ? fmt::format("unset on {}", join_labels(labels))
                                              : fmt::format("{}{} on {}", k, val, join_labels(labels)));
    f.fix = some_unset ? fmt::format(
                             "Set {} the same on every node. With mpirun, forward it: mpirun -x {} ...; "
                             "with srun it is exported by default (--export=ALL).",
                             k, k)
                       : fmt::format(
                             "Give {} one value on every node (unless interface names really differ "
                             "per node, in which case check the mesh results below).",
                             k);
    out.push_back(std::move(f));
  }
  if (out.empty())
    out.push_back(Finding{
        "cluster.env.same", Severity::ok,
        fmt::format("{} NCCL/CUDA/Gloo/UCX/OMPI variables agree on all {} nodes", same, nodes.size())});
  return out;
}

}  // namespace

ClusterRule cluster_env_rule() {
  return {
      "cluster.env",
      check_env,
      {{"cluster.env.diff", "An NCCL/CUDA/Gloo/UCX/OMPI variable differs across nodes",
        "A variable that steers NCCL, CUDA, Gloo, UCX or Open MPI (or LD_LIBRARY_PATH / PYTHONPATH) is "
        "set on some nodes and not others, or to different values. The usual cause is mpirun, which does "
        "not forward the environment unless asked (-x NAME); other causes are per-node shell profiles. "
        "Ranks then pick different interfaces, transports or libraries and hang at init."},
       {"cluster.env.same", "The job's environment agrees across nodes", "No compared variable differs."}}};
}

}  // namespace dd::rules
