// rank_ranges (see rank_ranges.h).
#include "cluster/rank_ranges.h"

#include <fmt/format.h>

namespace dd::cluster {

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

}  // namespace dd::cluster
