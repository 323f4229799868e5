// This process as a starting point for the processes it starts: its own executable (to run copies of itself
// as workers) and its whole environment (what a child inherits). Read once by the cli and handed down, so
// comm/ and launch/ never read /proc or environ themselves.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace dd::probe {

struct SelfProcess {
  std::string executable;                // resolved /proc/self/exe; "" when unreadable
  std::vector<std::string> environment;  // "NAME=value" entries of environ, in order
};

SelfProcess read_self_process();

// Where this process's command line lives in its memory (fields 48 and 49 of /proc/self/stat: arg_start,
// arg_end), as what ps and pkill -f read; {nullptr, 0} when unreadable. A forked copy may overwrite its own
// (process::OrphanGuard does).
struct ArgumentArea {
  char* start = nullptr;
  size_t size = 0;
};
ArgumentArea read_argument_area();

}  // namespace dd::probe
