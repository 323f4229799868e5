// status_text (see status_text.h).
#include "launch/status_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dd::launch {

std::string short_duration(double seconds) {
  const int64_t s = std::isfinite(seconds) && seconds > 0 ? int64_t(std::min(seconds, 1e12)) : 0;
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  if (s < 86400) return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
  return fmt::format("{}d{:02}h", s / 86400, s % 86400 / 3600);
}

std::string status_text(const StatusInfo& in) {
  const std::string head =
      "distdoctor: " + (in.nnodes > 1 ? fmt::format("node {}: ", in.node_rank) : std::string()) +
      fmt::format("{}/{} rank{} running", in.running, in.ranks, in.ranks == 1 ? "" : "s");
  const std::string attempt = in.attempt > 0 ? fmt::format(" (attempt {})", in.attempt) : "";
  std::string tail = ", " + short_duration(in.elapsed_s);
  if (in.last_rank < 0)
    tail += ", no output yet";
  else
    tail += fmt::format(", last output rank {} {} ago", in.last_rank, short_duration(in.last_ago_s));
  // Too wide: the attempt goes first (the restart was said on its own line), then the end is cut.
  std::string t = head + attempt + tail;
  if (t.size() > kStatusColumns) t = head + tail;
  if (t.size() > kStatusColumns) t.resize(kStatusColumns);
  return t;
}

bool status_line_wanted(bool json, bool stderr_is_terminal, const std::string& setting) {
  if (json) return false;
  if (setting == "1") return true;
  if (setting == "0") return false;
  return stderr_is_terminal;
}

}  // namespace dd::launch
