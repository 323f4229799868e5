// Parsing and acting on the worker fault hook.
#include "comm/run/worker_fault.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>

namespace dd::comm {

void maybe_fault(const std::string& fault, const std::vector<int>& ranks, const std::string& point, int op) {
  if (fault.empty()) return;
  auto colon = fault.find(':');
  if (colon == std::string::npos) return;
  int r = std::atoi(fault.substr(0, colon).c_str());
  bool mine = false;
  for (int x : ranks) mine |= x == r;
  if (!mine) return;
  std::string kind = fault.substr(colon + 1);
  int at = -1;
  if (auto a = kind.find('@'); a != std::string::npos) {
    at = std::atoi(kind.substr(a + 1).c_str());
    kind = kind.substr(0, a);
  }
  if (point == "init" && kind == "nojoin")
    for (;;) pause();
  if (point == "init" && kind == "exit") _exit(3);
  if (point == "op" && op == at && kind == "die") raise(SIGKILL);
  if (point == "op" && op == at && kind == "stall")
    for (;;) pause();
  if (point == "op" && op == at && kind == "sigstop") raise(SIGSTOP);  // state T until SIGCONT or SIGKILL
}

bool fault_matches(const std::string& fault, const std::vector<int>& ranks, const std::string& kind, int op) {
  std::string want = ":" + kind + "@" + std::to_string(op);
  auto colon = fault.find(':');
  if (colon == std::string::npos || fault.substr(colon) != want) return false;
  int r = std::atoi(fault.substr(0, colon).c_str());
  for (int x : ranks)
    if (x == r) return true;
  return false;
}

}  // namespace dd::comm
