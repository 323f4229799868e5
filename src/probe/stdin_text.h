// Standard input read whole, as `explain -` takes a pasted log: capped in bytes (the rest is left unread)
// and in time (a pipe whose writer never closes it, a terminal nobody types into), so no input can take the
// tool's memory or hold it forever. Says which limit cut it. Also one read of it by a deadline, for `logs -`,
// which streams it.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "probe/regular_file.h"

namespace dd::probe {

struct StdinText {
  std::string text;
  bool truncated = false;  // stopped at max_bytes with more there
  bool timed_out = false;  // stopped at the deadline before the end
};

// Reads fd (standard input unless a test gives another) up to its end, limits.max_bytes or limits.deadline,
// whichever comes first: every wait is a poll() bounded by the time left. Error only when a read fails.
Result<StdinText> read_stdin(const ReadLimits& limits, int fd = 0);

// One read(2) of fd that waits (poll) no later than the deadline: bytes read, 0 at the end, -1 with errno
// (ETIMEDOUT once the deadline passed with no data). The descriptor's flags are left as they are.
ssize_t read_stdin_until(int fd, char* buf, size_t n, std::chrono::steady_clock::time_point deadline);

}  // namespace dd::probe
