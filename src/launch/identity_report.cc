// launch.rank.differs: the ranks that run with another NCCL library, or other NCCL, CUDA or PyTorch variables
// or LD_PRELOAD, than the rest of the job (read from each worker's /proc, compared by rules/rank_identity).
// launch.env.differs compares the nodes' launcher environments; this compares what each rank really runs
// with, so a variable set by a wrapper script on one rank is seen (a whole node that differs shows in both).
#include <fmt/format.h>

#include <algorithm>

#include "launch/report_parts.h"
#include "launch/worker_env.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

std::map<std::string, std::string> identity_of_env(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : env)  // already as env_for_compare (job_settings.h) leaves them
    if (rules::identity_variable(k) && !is_launcher_var(k)) out[k] = v;
  return out;
}

std::vector<rules::RankIdentity> rank_identities(const AttemptRecord& a) {
  std::vector<rules::RankIdentity> out;
  for (const RankRecord* r : all_ranks(a)) {
    rules::RankIdentity id{
        .rank = r->rank, .node = r->node_rank, .known = r->identity_read, .items = r->identity};
    if (const NodeRecord* n = find_node(a, r->node_rank); n && !n->env.empty()) {
      id.expected_known = true;  // what launch gave it: the launcher's environment on its node
      id.expected = identity_of_env(n->env);
    }
    out.push_back(std::move(id));
  }
  return out;
}

namespace {

// The job failed inside NCCL: the root rank's diagnosis is an nccl.* entry, or its traceback names NCCL.
bool failed_in_nccl(const AttemptRecord& a) {
  if (a.stop.cause != StopCause::worker_failed) return false;
  for (const auto& d : a.stop.diagnosis)
    if (d.id.rfind("nccl.", 0) == 0) return true;
  return root_record(a).traceback.find("NCCL") != std::string::npos;
}

bool names_nccl_ranks(const rules::OddSetting& s) { return rules::affects_nccl(s) && s.singled_out; }

}  // namespace

std::optional<Finding> rank_differs_finding(const AttemptRecord& a) {
  auto odd = rules::odd_settings(rank_identities(a));
  if (odd.empty()) return std::nullopt;
  // The one that changes NCCL and names its ranks leads: it explains a failure in NCCL.
  std::stable_partition(odd.begin(), odd.end(), names_nccl_ranks);
  Finding f{.id = "launch.rank.differs", .severity = Severity::warn};
  f.title = rules::odd_setting_text(odd.front());
  if (odd.size() > 1)
    f.title += fmt::format(" (and {} more difference{})", odd.size() - 1, odd.size() > 2 ? "s" : "");
  if (odd.front().singled_out && odd.front().ranks.size() == 1) {
    f.rank = odd.front().ranks.front();
    for (const RankRecord* r : all_ranks(a))
      if (r->rank == f.rank) f.node = host_of(a, r->node_rank);
  }
  for (const rules::OddSetting& s : odd) f.evidence.push_back(rules::odd_setting_text(s));
  if (names_nccl_ranks(odd.front()) && failed_in_nccl(a)) {  // the cause of the failure, not a warning
    f.severity = Severity::fail;
    f.title += fmt::format(": ranks that disagree on NCCL fail or hang together, and {} failed first",
                           ranks_phrase({root_record(a).rank}));
  }
  f.fix =
      "Give every rank the same NCCL library and the same NCCL_*, CUDA_* and TORCH_* settings: look for a "
      "wrapper script, a per-rank branch in the job's start-up, an LD_PRELOAD, or a module or conda "
      "environment "
      "loaded on some ranks only. Ranks that disagree on NCCL's library, protocol or transports can hang in "
      "init or in their first collective, or give wrong results.";
  return f;
}

}  // namespace dd::launch::parts
