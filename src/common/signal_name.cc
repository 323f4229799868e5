// Signal names (signal_name.h), from glibc's table (sigabbrev_np), so every report spells them alike.
#include "common/signal_name.h"

#include <csignal>
#include <cstring>

namespace dd {

namespace {
constexpr int kLastSignal = 64;
}

std::string signal_abbrev(int sig) {
  const char* abbrev = sig > 0 && sig <= kLastSignal ? sigabbrev_np(sig) : nullptr;
  return abbrev ? std::string("SIG") + abbrev : std::string();
}

std::string signal_name(int sig) {
  std::string s = signal_abbrev(sig);
  return s.empty() ? "signal " + std::to_string(sig) : s;
}

int signal_number(std::string_view name) {
  if (name.starts_with("SIG")) name.remove_prefix(3);
  if (name.empty()) return 0;
  for (int s = 1; s <= kLastSignal; ++s)
    if (const char* a = sigabbrev_np(s); a && name == a) return s;
  return 0;
}

}  // namespace dd
