// launch.rank.left_early: a rank that exited with status 0 while the others went on, before the failure that
// stopped the job, when that failure reads as a lost peer ("Connection closed by peer" from Gloo, NCCL's
// remote error): the rank that failed first only noticed that its peer had left. Without it, launch blamed
// the witness (rank 0's RuntimeError) for what rank 1's early sys.exit(0) caused.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "launch/report_parts.h"

namespace dd::launch::parts {

using report::Finding;
using report::Severity;

namespace {

// What a rank prints when the process on the other end of a connection went away.
bool reads_as_lost_peer(const RankRecord& r) {
  static const char* const kMarks[] = {"closed by peer", "reset by peer",   "broken pipe",
                                       "remote process", "ncclremoteerror", "connection closed",
                                       "peer closed",    "remote end"};
  std::string text = r.traceback;
  for (const auto& l : r.tail) text += "\n" + l;
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* m : kMarks)
    if (text.find(m) != std::string::npos) return true;
  return false;
}

}  // namespace

std::string left_early_fix(const std::vector<int>& ranks) {
  return fmt::format(
      "{} left the job while the others still called collectives: every rank must make the same collective "
      "calls, so a rank may not return, break out of its loop or sys.exit() on its own. Give every rank the "
      "same "
      "number of steps (DistributedSampler with drop_last=True, or pad the last batch), or agree to stop "
      "together (all_reduce a 'done' flag each step, then leave at once on every rank).",
      ranks_phrase(ranks));
}

std::optional<Finding> left_early_finding(const AttemptRecord& a) {
  const RankRecord root = root_record(a);
  if (root.end_wall_ms <= 0 || !reads_as_lost_peer(root)) return std::nullopt;
  const RankRecord* left = nullptr;
  for (const RankRecord* r : all_ranks(a))
    if (!r->running && !r->stopped_by_us && r->signal == 0 && r->exit_code == 0 && r->end_wall_ms > 0 &&
        r->end_wall_ms <= root.end_wall_ms && (!left || r->end_wall_ms < left->end_wall_ms))
      left = r;
  if (!left) return std::nullopt;
  Finding f{.id = "launch.rank.left_early", .severity = Severity::fail};
  f.rank = left->rank;
  f.node = host_of(a, left->node_rank);
  f.title = fmt::format(
      "rank {} exited with status 0 at {:.1f} s while the others went on; rank {} then lost it as a peer and "
      "failed {:.1f} s later",
      left->rank, left->end_s, root.rank, std::max(0.0, (root.end_wall_ms - left->end_wall_ms) / 1000.0));
  const std::string last = last_line(*left);
  if (!last.empty())
    f.evidence.push_back(fmt::format("rank {}'s last line: \"{}\"", left->rank, shown_line(last)));
  const std::string why =
      root.traceback.empty() ? last_line(root) : root.traceback.substr(root.traceback.rfind('\n') + 1);
  f.evidence.push_back(fmt::format("rank {} {}: {}", root.rank, end_text(root), shown_line(why)));
  f.fix = left_early_fix({left->rank});
  return f;
}

}  // namespace dd::launch::parts
