// The Flight Recorder's view of an attempt: every node's digest merged (the same answer as all dumps in one
// place), and launch.job.mismatch, for a job that ended well although at one collective sequence number its
// ranks disagreed on sizes, types or the op itself (read from each worker's exit dump). NCCL does not check
// that ranks pass the same counts: an all_gather where one rank sends twice the elements of the others can
// complete and leave wrong or partly written buffers, so the job's exit code alone cannot be trusted.
#include <fmt/format.h>

#include "launch/failure_report_ids.h"
#include "launch/report_parts.h"
#include "logs/fr/fr_rules.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

std::optional<logs::FrSummary> attempt_fr_summary(const AttemptRecord& a) {
  std::vector<logs::FrSummary> digests;
  for (const NodeRecord& n : a.nodes)
    if (n.flight_recorder.is_object())
      if (auto s = logs::fr_summary_from_json(n.flight_recorder)) digests.push_back(std::move(*s));
  if (digests.empty()) return std::nullopt;
  logs::FrSummary s = logs::merge_fr_summaries(digests);
  align_fr_clocks(s, a.clock_offsets);  // ranks of all nodes on one clock where the offsets are known
  return s;
}

std::optional<logs::FrAnalysis> attempt_fr_analysis(const AttemptRecord& a) {
  const auto s = attempt_fr_summary(a);
  return s ? std::optional(logs::analyze_fr_summary(*s)) : std::nullopt;
}

void add_fr_dump_evidence(const AttemptRecord& a, std::vector<std::string>& evidence) {
  for (const RankRecord* r : all_ranks(a))
    if (!r->fr_dump.empty())
      evidence.push_back(fmt::format("rank {} Flight Recorder dump: {}", r->rank, r->fr_dump));
}

std::optional<Finding> completed_mismatch_finding(const AttemptRecord& a) {
  const auto fa = attempt_fr_analysis(a);
  if (!fa) return std::nullopt;
  for (const logs::FrCulprit& k : fa->culprits) {
    if (k.kind != "desync" && k.kind != "size_mismatch" && k.kind != "dtype_mismatch") continue;
    Finding f{.id = "launch.job.mismatch", .severity = Severity::warn};
    std::vector<int> others;  // the expected side: the most ranks
    for (const auto& g : fa->groups)
      if (g.has_mismatch && g.pg_name == k.pg_name && g.mismatch.seq == k.seq)
        others = g.mismatch.sides[0].ranks;
    const std::string what = k.kind == "size_mismatch"    ? "sizes"
                             : k.kind == "dtype_mismatch" ? "types"
                                                          : "collectives";
    f.title = fmt::format(
        "the job ended, but its ranks passed different {} to one collective: {} called {} at seq {} of "
        "group {} ({}) where {} called {}",
        what, ranks_phrase(k.ranks), logs::signature_words(k.did), k.seq, k.pg_name, k.pg_desc,
        others.empty() ? std::string("the others") : ranks_phrase(others), logs::signature_words(k.expected));
    if (k.ranks.size() == 1) f.rank = k.ranks.front();
    f.evidence.push_back("found in the Flight Recorder dumps the workers wrote as they exited");
    if (!k.detail.empty()) f.evidence.push_back(k.detail);
    if (k.has_where && !k.where.frames.empty())
      f.evidence.push_back("its call: " + logs::frames_text(k.where.frames));
    add_fr_dump_evidence(a, f.evidence);
    f.fix = fmt::format(
        "Look at the code path of {} for this collective: a rank-dependent size (uneven batches, a last "
        "shorter batch, a tensor built from local data) or type. NCCL does not compare counts across ranks, "
        "so such a call can finish and leave garbage in the receiving buffers: check the results of this "
        "run before you use them. PyTorch's uneven all_gather takes a list of output tensors with every "
        "rank's size.",
        ranks_phrase(k.ranks));
    return f;
  }
  return std::nullopt;
}

std::vector<Finding> straggler_findings(const AttemptRecord& a) {
  std::vector<Finding> out;
  std::vector<std::string> live;  // what the live check said, for the evidence
  const StragglerSeen* last = nullptr;
  for (const NodeRecord& n : a.nodes)
    for (const StragglerSeen& s : n.stragglers_seen) {
      live.push_back(fmt::format("seen while the job ran, {} on node {}: {}", s.at, n.node_rank, s.text));
      last = &s;
    }
  if (const auto fa = a.stop.cause == StopCause::none ? attempt_fr_analysis(a) : std::nullopt)
    for (const logs::FrStraggler& g : fa->stragglers) {
      Finding f = logs::straggler_finding(g, ids::kJobStraggler);
      f.evidence.push_back("found in the Flight Recorder dumps the workers wrote as they exited");
      add_fr_dump_evidence(a, f.evidence);
      f.details = live;
      out.push_back(std::move(f));
    }
  if (out.empty() && last) {  // the job did not end well, or its end shows none: what was seen while it ran
    Finding f{.id = ids::kJobStraggler, .severity = Severity::warn, .rank = last->rank};
    f.title = "while the job ran: " + last->text;
    f.evidence = live;
    f.fix = logs::straggler_fix(last->rank, last->on_gpu);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace dd::launch::parts
