// terminal_tee (see terminal_tee.h).
#include "launch/terminal_tee.h"

#include <fmt/format.h>

#include <charconv>

namespace dd::launch {

std::string rank_prefix(int rank) { return fmt::format("[rank{}]: ", rank); }

bool tee_shows(std::string_view tee, int rank) {
  if (tee == "all") return true;
  int n = -1;
  const char* end = tee.data() + tee.size();
  auto [p, ec] = std::from_chars(tee.data(), end, n);
  return ec == std::errc() && p == end && n == rank;
}

std::string companion_prefix(std::string_view role) { return "[" + std::string(role) + "]: "; }

bool tee_shows_companion(std::string_view tee) { return tee == "all"; }

}  // namespace dd::launch
