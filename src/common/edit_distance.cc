// Optimal string alignment distance (see edit_distance.h): three rows of the classic table, cut off early
// once a whole row is beyond the cap.
#include "common/edit_distance.h"

#include <algorithm>
#include <vector>

namespace dd {

size_t edit_distance(std::string_view a, std::string_view b, size_t cap) {
  const size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > cap) return cap + 1;  // the length difference alone costs more
  std::vector<size_t> before(m + 1), prev(m + 1), row(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    row[0] = i;
    size_t best = row[0];
    for (size_t j = 1; j <= m; ++j) {
      const size_t substitute = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);  // two neighbours swapped
      best = std::min(best, row[j]);
    }
    if (best > cap) return cap + 1;
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return std::min(prev[m], cap + 1);
}

}  // namespace dd
