// Signal names (signal_name.h), from one table, so every report spells them alike. The table is glibc's
// (what sigabbrev_np returns on Linux x86_64: the 31 standard signals, real-time ones unnamed), kept here
// because sigabbrev_np itself is glibc 2.32+ and the portable build runs on 2.31.
#include "common/signal_name.h"

#include <array>

namespace dd {

namespace {
constexpr std::array<const char*, 32> kAbbrev = {
    nullptr, "HUP",  "INT",  "QUIT", "ILL",    "TRAP",   "ABRT",  "BUS",  "FPE",  "KILL", "USR1",
    "SEGV",  "USR2", "PIPE", "ALRM", "TERM",   "STKFLT", "CHLD",  "CONT", "STOP", "TSTP", "TTIN",
    "TTOU",  "URG",  "XCPU", "XFSZ", "VTALRM", "PROF",   "WINCH", "POLL", "PWR",  "SYS"};

const char* abbrev_of(int sig) { return sig > 0 && sig < int(kAbbrev.size()) ? kAbbrev[sig] : nullptr; }
}  // namespace

std::string signal_abbrev(int sig) {
  const char* abbrev = abbrev_of(sig);
  return abbrev ? std::string("SIG") + abbrev : std::string();
}

std::string signal_name(int sig) {
  std::string s = signal_abbrev(sig);
  return s.empty() ? "signal " + std::to_string(sig) : s;
}

int signal_number(std::string_view name) {
  if (name.starts_with("SIG")) name.remove_prefix(3);
  if (name.empty()) return 0;
  for (int s = 1; s < int(kAbbrev.size()); ++s)
    if (name == kAbbrev[s]) return s;
  return 0;
}

}  // namespace dd
