// The rows both straggler analyses compare (fr_rows.h).
#include "logs/fr/fr_rows.h"

#include <algorithm>
#include <utility>

namespace dd::logs::fr_rows {

int64_t Track::at(const std::vector<int64_t>& v, int64_t seq) const {
  const int64_t i = seq - t->arrival_first_seq;
  return i >= 0 && i < static_cast<int64_t>(v.size()) ? v[static_cast<size_t>(i)] : -1;
}

double median_ms(std::vector<int64_t> ns) {
  if (ns.empty()) return 0;
  std::nth_element(ns.begin(), ns.begin() + static_cast<std::ptrdiff_t>(ns.size() / 2), ns.end());
  return static_cast<double>(ns[ns.size() / 2]) / 1e6;
}

std::vector<Row> common_rows(const std::vector<Track>& tracks, Signal sig) {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  for (const Track& k : tracks) {
    lo = std::max(lo, k.t->arrival_first_seq);
    hi = std::min(hi, k.t->arrival_first_seq + static_cast<int64_t>(k.t->arrival_ns.size()) - 1);
  }
  std::vector<Row> rows;
  for (int64_t seq = lo; seq <= hi; ++seq) {
    Row r{seq, {}, {}};
    bool all = true;
    for (const Track& k : tracks) {
      const int64_t a = k.at(k.t->arrival_ns, seq), g = k.at(k.t->gpu_ns, seq);
      all = all && a >= 0 && (sig == Signal::arrival || g >= 0);
      r.arr.push_back(a);
      r.t.push_back(sig == Signal::arrival ? a : -g);
    }
    if (!all) continue;
    r.first = *std::min_element(r.t.begin(), r.t.end());
    rows.push_back(std::move(r));
  }
  return rows;
}

int last_of(const Row& r) {
  size_t last = 0;
  for (size_t i = 1; i < r.t.size(); ++i)
    if (r.t[i] > r.t[last]) last = i;
  for (size_t i = 0; i < r.t.size(); ++i)
    if (i != last && r.t[last] - r.t[i] < kMarginNs) return -1;
  return static_cast<int>(last);
}

// The part of track o's time, over rows [from, rows.size()), spent waiting for c. Arrivals: between its
// arrival and c's later one, their union (a queued collective waits at the same time). GPU times: the part of
// its kernel that ran before c's started, summed, over the wall time the window spans on o.
double wait_share(const std::vector<Row>& rows, size_t from, size_t o, size_t c, Signal sig) {
  const int64_t start = rows[from].arr[o], stop = std::max(rows.back().arr[o], rows.back().arr[c]);
  if (stop <= start) return 0;
  int64_t covered = 0;
  if (sig == Signal::gpu) {
    for (size_t k = from; k < rows.size(); ++k) covered += std::max<int64_t>(0, rows[k].t[c] - rows[k].t[o]);
  } else {
    std::vector<std::pair<int64_t, int64_t>> waits;
    for (size_t k = from; k < rows.size(); ++k)
      if (rows[k].t[c] > rows[k].t[o]) waits.emplace_back(rows[k].t[o], rows[k].t[c]);
    std::sort(waits.begin(), waits.end());
    int64_t end = INT64_MIN;
    for (const auto& [a, b] : waits) {
      if (b <= end) continue;
      covered += b - std::max(a, end);
      end = b;
    }
  }
  return std::min(1.0, static_cast<double>(covered) / static_cast<double>(stop - start));
}

Groups group_tracks(const FrSummary& s) {
  Groups g;
  for (const auto& r : s.ranks)
    for (const auto& t : r.groups)
      if (!t.arrival_ns.empty() && r.rank >= 0) {
        g.clocks[{t.pg_name, r.node}].push_back({r.rank, r.node, &t});
        if (!t.gpu_ns.empty()) g.timed[t.pg_name].push_back({r.rank, r.node, &t});
        g.descs[t.pg_name] = t.pg_desc;
      }
  return g;
}

int64_t earliest_arrival(const Row& r) { return *std::min_element(r.arr.begin(), r.arr.end()); }

}  // namespace dd::logs::fr_rows
