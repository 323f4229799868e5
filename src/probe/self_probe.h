// This process as a starting point for the processes it starts: its own executable (to run copies of itself
// as workers) and its whole environment (what a child inherits). Read once by the cli and handed down, so
// comm/ and launch/ never read /proc or environ themselves.
#pragma once
#include <string>
#include <vector>

namespace dd::probe {

struct SelfProcess {
  std::string executable;                // resolved /proc/self/exe; "" when unreadable
  std::vector<std::string> environment;  // "NAME=value" entries of environ, in order
};

SelfProcess read_self_process();

}  // namespace dd::probe
