// The line `distdoctor launch` appends to a rank's log once the rank has ended, and its reader. The log then
// says how the rank ended (killed by a signal, an exit status, stopped by launch), so `distdoctor logs
// RUN_DIR` later knows what launch knew: which rank failed and which ones launch only stopped, even when the
// rank printed nothing. Example:
//   2026-11-27 23:00:55.352 distdoctor launch: rank 1 (pid 993) was killed by signal 9 (SIGKILL)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "logs/log_facts.h"

namespace dd::logs {

struct RankEnd {
  int rank = -1;
  int64_t pid = -1;
  int exit_code = -1;              // when it exited
  int signal = 0;                  // when a signal ended it
  bool stopped_by_launch = false;  // launch ended it (after another rank's failure, a hang, a Ctrl-C)
  int64_t wall_ms = 0;             // when it ended (epoch ms), written in local time as the logs' clocks are
};

// The line, with a trailing newline.
std::string launch_end_line(const RankEnd& e);

// Whether a log line is one (cheap: looked at for every line).
bool is_launch_end_line(std::string_view line);

// The exit it records (code: the exit status, or -signal; by_launcher when launch stopped it), at `at`.
std::optional<ExitEvent> read_launch_end_line(std::string_view line, const Where& at);

}  // namespace dd::logs
