// find_stragglers (fr_straggler.h): per process group and clock, the collectives every rank created, each
// rank's lateness in them, the rank that comes last most, and where it began to (a step from keeping up to
// coming last explains the most collectives).
#include "logs/fr/fr_straggler.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "logs/fr/fr_analysis.h"
#include "logs/fr/fr_rows.h"

namespace dd::logs {

namespace {

using fr_rows::common_rows, fr_rows::earliest_arrival, fr_rows::last_of, fr_rows::median_ms, fr_rows::Row,
    fr_rows::Signal, fr_rows::Track, fr_rows::wait_share;

// Where track c began to come last (last[k]: the track last in row k; last_total: how often c was): the
// switch that explains the most collectives (kept up before, last after); a switch in its first tenth (or
// first kStragglerMinCompared) is the start itself.
size_t began_last_at(const std::vector<int>& last, size_t c, size_t last_total) {
  const size_t n = last.size();
  size_t from = 0, best = 0, suffix = last_total, prefix_kept = 0;
  for (size_t k = 0; k + kStragglerMinCompared <= n; ++k) {
    if (suffix + prefix_kept > best) best = suffix + prefix_kept, from = k;
    if (last[k] == static_cast<int>(c))
      --suffix;
    else
      ++prefix_kept;
  }
  return from < std::max(kStragglerMinCompared, n / 10) ? 0 : from;
}

// Who the straggler is, who waits for it and how much, the collectives and the time it spans, and when it
// turned slow (from > 0).
void describe_straggler(FrStraggler& g, const std::vector<Track>& tracks, const std::vector<Row>& rows,
                        size_t c, size_t from, Signal sig) {
  g.rank = tracks[c].rank;
  g.node = tracks[c].node;
  double shares = 0;
  for (size_t o = 0; o < tracks.size(); ++o)
    if (o != c) {
      g.others.push_back(tracks[o].rank);
      shares += wait_share(rows, from, o, c, sig);
    }
  g.others_wait_share = shares / static_cast<double>(g.others.size());
  g.first_seq = rows[from].seq;
  g.last_seq = rows.back().seq;
  g.on_gpu = sig == Signal::gpu;
  g.span_s = static_cast<double>(*std::max_element(rows.back().arr.begin(), rows.back().arr.end()) -
                                 earliest_arrival(rows[from])) /
             1e9;
  if (from > 0) {
    g.fail_slow = true;
    g.before_from_seq = rows.front().seq;
    g.slow_after_s = static_cast<double>(earliest_arrival(rows[from]) - earliest_arrival(rows.front())) / 1e9;
  }
}

std::optional<FrStraggler> straggler_among(const std::vector<Track>& tracks, Signal sig) {
  std::vector<Row> rows = common_rows(tracks, sig);
  const size_t timed = rows.size();
  if (sig == Signal::gpu) {
    // On the GPU a collective queued right behind a late one starts together everywhere (on 4x H200 a step's
    // small all_reduce after a late 4 MiB one: all kernels 0.01-0.05 ms): only the collectives someone
    // started late count, and they must be a tenth of all, not a stray few.
    std::erase_if(rows, [](const Row& r) { return last_of(r) < 0; });
    if (rows.size() < timed / 10) return std::nullopt;
  }
  const size_t n = rows.size();
  if (n < kStragglerMinCompared) return std::nullopt;
  std::vector<int> last(n);
  std::vector<size_t> count(tracks.size());
  for (size_t k = 0; k < n; ++k)
    if ((last[k] = last_of(rows[k])) >= 0) ++count[static_cast<size_t>(last[k])];
  const size_t c = static_cast<size_t>(std::max_element(count.begin(), count.end()) - count.begin());
  const size_t from = began_last_at(last, c, count[c]);
  // Arrivals are judged where a rank waited: a blocking collective (Gloo's) returns together on every rank,
  // so the one after it is created together (4 Gloo ranks on 16 cores, one asleep 250 ms before each step's
  // large all_reduce: the small one after it within 0.03-0.12 ms on every rank); those ties say nothing of
  // who is late.
  size_t last_count = 0, waited = 0;
  std::vector<int64_t> late, others_late, before;
  for (size_t k = 0; k < n; ++k) {
    if (k < from) {
      before.push_back(rows[k].t[c] - rows[k].first);
      continue;
    }
    if (last[k] < 0) continue;
    ++waited;
    late.push_back(rows[k].t[c] - rows[k].first);
    last_count += last[k] == static_cast<int>(c);
    for (size_t o = 0; o < tracks.size(); ++o)
      if (o != c) others_late.push_back(rows[k].t[o] - rows[k].first);
  }
  const size_t window = n - from;
  FrStraggler g;
  g.late_ms = median_ms(late);
  if (waited < kStragglerMinCompared || waited < window / 10 ||
      static_cast<double>(last_count) < kStragglerLastShare * static_cast<double>(waited) ||
      g.late_ms < kStragglerMinLateMs)
    return std::nullopt;
  g.compared = window;
  g.waited = waited;
  g.last = last_count;
  g.others_late_ms = median_ms(others_late);
  g.timed = timed;
  describe_straggler(g, tracks, rows, c, from, sig);
  if (g.fail_slow && g.span_s < kFailSlowMinSpanS) return std::nullopt;  // a hiccup, not a rank turned slow
  if (from > 0) g.before_late_ms = median_ms(before);
  return g;
}

}  // namespace

std::vector<FrStraggler> find_stragglers(const FrSummary& s) {
  auto [clocks, timed, descs] = fr_rows::group_tracks(s);
  std::vector<FrStraggler> out;
  std::set<std::string> named;  // groups with a straggler by arrival
  for (const auto& [key, tracks] : clocks) {
    if (tracks.size() < 2) continue;
    if (auto g = straggler_among(tracks, Signal::arrival)) {
      g->pg_name = key.first;
      g->pg_desc = descs[key.first];
      named.insert(key.first);
      out.push_back(std::move(*g));
    }
  }
  // Where arrivals name no one, the GPU times may: a rank whose kernels start late (a slower or shared GPU),
  // or one alone on its node, whose arrivals no other rank's clock compares.
  for (const auto& [pg, tracks] : timed) {
    if (tracks.size() < 2 || named.count(pg)) continue;
    if (auto g = straggler_among(tracks, Signal::gpu)) {
      g->pg_name = pg;
      g->pg_desc = descs[pg];
      out.push_back(std::move(*g));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const FrStraggler& a, const FrStraggler& b) {
    return a.others_wait_share > b.others_wait_share;
  });
  return out;
}

std::string straggler_text(const FrStraggler& g) {
  const bool one = g.others.size() == 1;
  const std::string where =
      g.on_gpu ? fmt::format("starts {} of {} collectives of group {} ({}) last on its GPU", g.last, g.timed,
                             g.pg_name, g.pg_desc)
      : g.waited == g.compared
          ? fmt::format("arrives last at {:.0f}% of {} collectives of group {} ({})",
                        100.0 * static_cast<double>(g.last) / static_cast<double>(g.waited), g.waited,
                        g.pg_name, g.pg_desc)
          : fmt::format(
                "arrives last at {:.0f}% of the {} collectives of group {} ({}) that a rank waited "
                "in ({} of {} were ties within {} ms)",
                100.0 * static_cast<double>(g.last) / static_cast<double>(g.waited), g.waited, g.pg_name,
                g.pg_desc, g.compared - g.waited, g.compared, kStragglerMarginNs / 1'000'000);
  std::string text = fmt::format(
      "rank {} {}, {:.0f} ms late (median{}): {} {:.0f}% of {} time waiting for it", g.rank, where, g.late_ms,
      one ? "" : fmt::format("; the others within {:.1f} ms of the first", g.others_late_ms),
      one ? fmt::format("rank {} spends", g.others[0]) : fmt::format("ranks {} spend", rank_list(g.others)),
      100.0 * g.others_wait_share, one ? "its" : "their");
  if (g.on_gpu) text += " (from the collectives' times on the GPUs)";
  if (g.fail_slow)
    text += fmt::format(
        "; it became slow at collective {}, {:.1f} s after collective {} (before, {:.1f} ms late)",
        g.first_seq, g.slow_after_s, g.before_from_seq, g.before_late_ms);
  return text;
}

}  // namespace dd::logs
