// The live status line `distdoctor launch` keeps at the bottom of a terminal while the job runs, and when it
// is shown at all. Pure: status_line.h draws it.
//   distdoctor: 4/4 ranks running, 1m20s, last output rank 2 3s ago
#pragma once
#include <string>

namespace dd::launch {

struct StatusInfo {
  int running = 0;    // this node's workers still running
  int ranks = 0;      // this node's workers
  int node_rank = 0;  // said when nnodes > 1
  int nnodes = 1;
  double elapsed_s = 0;   // since the attempt's workers started
  int attempt = 0;        // said when > 0 (after a restart)
  int last_rank = -1;     // the global rank that printed last; -1: none has printed yet
  double last_ago_s = 0;  // how long ago it did
};

// At most kStatusColumns characters (a longer line would wrap, and the wrapped part could not be erased).
constexpr size_t kStatusColumns = 79;
std::string status_text(const StatusInfo& in);

// "3s", "1m20s", "2h05m", "3d04h" (whole seconds, rounded down; negative reads as 0s).
std::string short_duration(double seconds);

// Whether to show it: never with --json; else the setting DISTDOCTOR_STATUS_LINE ("1": always, also into a
// pipe or file, which tests use; "0": never) or, unset or anything else, only when stderr is a terminal.
bool status_line_wanted(bool json, bool stderr_is_terminal, const std::string& setting);

}  // namespace dd::launch
