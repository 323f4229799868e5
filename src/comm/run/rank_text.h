// How findings write sets of ranks: "0-2", "0, 2, 3", "0-2, 5"; "rank 3" / "ranks 0-2"; every one listed: "0,
// 1, 2".
#pragma once
#include <fmt/format.h>

#include <string>
#include <vector>

namespace dd::comm {

inline std::string rank_span(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    s += (s.empty() ? "" : ", ") + (j >= i + 2   ? fmt::format("{}-{}", v[i], v[j])
                                    : j == i + 1 ? fmt::format("{}, {}", v[i], v[j])
                                                 : std::to_string(v[i]));
    i = j + 1;
  }
  return s;
}

// Every rank, comma-separated, no ranges: "0, 1, 2".
inline std::string rank_list(const std::vector<int>& v) { return fmt::format("{}", fmt::join(v, ", ")); }

inline std::string ranks_word(const std::vector<int>& v) {
  return (v.size() == 1 ? "rank " : "ranks ") + rank_span(v);
}

}  // namespace dd::comm
