// rank_ranges and ranks_phrase (see rank_ranges.h).
#include "report/rank_ranges.h"

#include <fmt/format.h>

#include <algorithm>

namespace dd::report {

std::string rank_ranges(const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + (j > i + 1    ? fmt::format("{}-{}", ranks[i], ranks[j])
                                       : j == i + 1 ? fmt::format("{},{}", ranks[i], ranks[j])
                                                    : std::to_string(ranks[i]));
    i = j + 1;
  }
  return out;
}

std::string ranks_phrase(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return fmt::format("rank{} {}", ranks.size() == 1 ? "" : "s", rank_ranges(ranks));
}

}  // namespace dd::report
