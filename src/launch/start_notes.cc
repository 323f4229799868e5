// start_notes (see start_notes.h).
#include "launch/start_notes.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/rank_ranges.h"

namespace dd::launch {

namespace {

// Whose output the terminal shows, and where the rest is.
std::string tee_line(const StartInfo& in, const std::string& dir) {
  if (in.tee == "all")
    return fmt::format(
        "showing every rank's output, each line prefixed [rankN]: (logs in {}; --tee 0 for rank 0 "
        "only, --tee none for none)",
        dir);
  const std::string narrow = "; --tee all to see every rank";
  if (in.tee == "none")
    return fmt::format("showing no rank's output (--tee none; all ranks' logs in {}{})", dir, narrow);
  int rank = -1;
  try {
    rank = std::stoi(in.tee);
  } catch (const std::exception&) {
  }
  if (std::find(in.ranks.begin(), in.ranks.end(), rank) != in.ranks.end())
    return fmt::format("showing rank {}'s output (all ranks' logs in {}{})", rank, dir, narrow);
  if (in.nnodes > 1)
    return fmt::format(
        "showing no rank's output here: rank {} is not on this node (this node's logs in {}{})", in.tee, dir,
        narrow);
  return fmt::format("showing no rank's output: --tee {} names no rank of this job ({}; logs in {}{})",
                     in.tee, report::ranks_phrase(in.ranks), dir, narrow);
}

}  // namespace

std::vector<std::string> start_notes(const StartInfo& in) {
  const std::string dir = in.attempt_dir + "/";
  std::vector<std::string> lines;
  lines.push_back(fmt::format(
      "job {}{}, attempt {}: logs in {}", in.job_id,
      in.nnodes > 1 ? fmt::format(" (node rank {} of {})", in.node_rank, in.nnodes) : std::string(),
      in.attempt, dir));
  if (in.ranks.size() <= kListedLogs) {
    for (size_t i = 0; i < in.ranks.size() && i < in.log_paths.size(); ++i)
      lines.push_back(fmt::format("rank {} log: {}", in.ranks[i], in.log_paths[i]));
  } else {
    std::vector<int> sorted = in.ranks;
    std::sort(sorted.begin(), sorted.end());
    lines.push_back(fmt::format("logs of {}: {}node{}.rankR.log, R = {}", report::ranks_phrase(in.ranks), dir,
                                in.node_rank, report::rank_ranges(sorted)));
  }
  lines.push_back(tee_line(in, dir));
  return lines;
}

}  // namespace dd::launch
