// holds_diagnosable (see diagnosable.h).
#include "logs/diagnosable.h"

#include <algorithm>

namespace dd::logs {

bool holds_diagnosable(const LogsResult& r) {
  if (!r.processes.empty() || !r.hits.empty() || r.unmatched_warns.count > 0 || !r.watchdogs.empty() ||
      !r.child_failures.empty() || !r.exits.empty() || !r.flight_records.empty() ||
      !r.flight_record_errors.empty())
    return true;
  if (std::any_of(r.files.begin(), r.files.end(), [](const FileFacts& f) { return f.nccl_lines > 0; }))
    return true;
  return std::any_of(r.ranks.begin(), r.ranks.end(), [](const RankProgress& p) {
    return p.rank >= 0 || p.nccl_seen || !p.exception.empty() || !p.peer_lost.empty() ||
           !p.waiting_in.empty() || p.waiting_peers || p.init_marker_at.line > 0;
  });
}

}  // namespace dd::logs
