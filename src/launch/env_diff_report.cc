// launch.env.differs: the variables whose value differs between the root-cause rank's node and another node,
// or that one of them lacks. Launcher variables and names that differ by design from node to node
// (HOSTNAME, SSH_*, Slurm's per-node ids...) are left out; values are redacted again before they are shown.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/redact.h"
#include "launch/report_parts.h"
#include "launch/worker_env.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

namespace {

constexpr size_t kShownVariables = 25;

// Variables that name the node or the login session rather than configure the job.
bool differs_by_design(const std::string& name) {
  // clang-format off
  static const char* const kNames[] = {
      "HOSTNAME", "HOST", "SHLVL", "OLDPWD", "_", "TERM", "TERM_SESSION_ID", "WINDOWID", "DISPLAY", "TMUX",
      "TMUX_PANE", "STY", "XDG_SESSION_ID", "XDG_RUNTIME_DIR", "SLURM_NODEID", "SLURMD_NODENAME",
      "SLURM_PROCID", "SLURM_LOCALID", "SLURM_TOPOLOGY_ADDR", "SLURM_GTIDS", "SLURM_TASK_PID",
      "SLURM_STEP_NODELIST", "SLURM_STEP_TASKS_PER_NODE", "OMPI_COMM_WORLD_RANK",
      "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_NODE_RANK", "PMI_RANK", "PMIX_RANK", "PMI_ID",
      "MV2_COMM_WORLD_RANK", "DISTDOCTOR_NODE_RANK"};
  // clang-format on
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames) ||
         name.rfind("SSH_", 0) == 0 || name.rfind("PMIX_", 0) == 0;
}

std::string shown_value(const std::map<std::string, std::string>& env, const std::string& name) {
  auto it = env.find(name);
  if (it == env.end()) return "unset";
  const std::string v = redact_value(name, it->second);
  return "\"" + (v.size() > 120 ? v.substr(0, 117) + "..." : v) + "\"";
}

}  // namespace

std::optional<Finding> env_differs_finding(const AttemptRecord& a) {
  if (a.nodes.size() < 2) return std::nullopt;
  const NodeRecord* base = find_node(a, root_node(a));
  if (!base) base = &a.nodes.front();  // the root's node sent no record: compare with the first that did
  std::set<std::string> names;         // every compared name, in order
  for (const auto& n : a.nodes)
    for (const auto& [k, v] : n.env)
      if (!is_launcher_var(k) && !differs_by_design(k)) names.insert(k);
  std::vector<std::string> differing, evidence;
  for (const auto& name : names) {
    std::string line;
    for (const auto& n : a.nodes) {
      if (&n == base) continue;
      const auto mine = base->env.find(name), theirs = n.env.find(name);
      const bool same = (mine == base->env.end()) == (theirs == n.env.end()) &&
                        (mine == base->env.end() || mine->second == theirs->second);
      if (!same) line += fmt::format("; {} {}", node_label(a, n.node_rank), shown_value(n.env, name));
    }
    if (line.empty()) continue;
    differing.push_back(name);
    if (evidence.size() < kShownVariables)
      evidence.push_back(fmt::format("{}: {} {}{}", name, node_label(a, base->node_rank),
                                     shown_value(base->env, name), line));
  }
  if (differing.empty()) return std::nullopt;
  if (differing.size() > evidence.size())
    evidence.push_back(fmt::format("... and {} more variables", differing.size() - evidence.size()));
  std::string names_shown;
  for (size_t i = 0; i < differing.size() && i < 5; ++i) names_shown += (i ? ", " : "") + differing[i];
  if (differing.size() > 5) names_shown += ", ...";
  Finding f{.id = "launch.env.differs", .severity = Severity::warn, .node = host_of(a, base->node_rank)};
  f.title = fmt::format("{} environment variable{} differ{} between {} and other nodes: {}", differing.size(),
                        differing.size() == 1 ? "" : "s", differing.size() == 1 ? "s" : "",
                        node_label(a, base->node_rank), names_shown);
  f.evidence = std::move(evidence);
  f.fix =
      "Give every node the same environment (the same container image, modules and exported variables). A "
      "different NCCL_*, LD_LIBRARY_PATH, PYTHONPATH, CUDA_* or framework variable on one node is a "
      "common cause of crashes and hangs that hit that node only; a difference that is meant to be there "
      "can be ignored.";
  return f;
}

}  // namespace dd::launch::parts
