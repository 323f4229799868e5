// rank_lateness (fr_lateness.h): the rows of fr_rows.h, every rank's column read out.
#include "logs/fr/fr_lateness.h"

#include <algorithm>
#include <tuple>

#include "logs/fr/fr_rows.h"

namespace dd::logs {

namespace {

using fr_rows::Row, fr_rows::Signal, fr_rows::Track;

void add_group(const std::vector<Track>& tracks, Signal sig, const std::string& pg, const std::string& desc,
               std::vector<FrRankLateness>& out) {
  if (tracks.size() < 2) return;
  const std::vector<Row> rows = fr_rows::common_rows(tracks, sig);
  if (rows.empty()) return;
  const int64_t start = fr_rows::earliest_arrival(rows.front());
  for (size_t c = 0; c < tracks.size(); ++c) {
    FrRankLateness r{.pg_name = pg,
                     .pg_desc = desc,
                     .rank = tracks[c].rank,
                     .node = sig == Signal::gpu ? -1 : tracks[c].node,
                     .on_gpu = sig == Signal::gpu,
                     .compared = rows.size()};
    std::vector<int64_t> late;
    for (const Row& row : rows) {
      late.push_back(row.t[c] - row.first);
      r.series.emplace_back(static_cast<double>(fr_rows::earliest_arrival(row) - start) / 1e9,
                            static_cast<double>(late.back()) / 1e6);
    }
    r.late_ms = fr_rows::median_ms(std::move(late));
    if (tracks.size() <= kLatenessMaxRanks) {
      double shares = 0;
      for (size_t o = 0; o < tracks.size(); ++o)
        if (o != c) shares += fr_rows::wait_share(rows, 0, o, c, sig);
      r.others_wait_share = shares / static_cast<double>(tracks.size() - 1);
    }
    out.push_back(std::move(r));
  }
}

}  // namespace

std::vector<FrRankLateness> rank_lateness(const FrSummary& s) {
  const fr_rows::Groups g = fr_rows::group_tracks(s);
  std::vector<FrRankLateness> out;
  for (const auto& [key, tracks] : g.clocks)
    add_group(tracks, Signal::arrival, key.first, g.descs.at(key.first), out);
  for (const auto& [pg, tracks] : g.timed) add_group(tracks, Signal::gpu, pg, g.descs.at(pg), out);
  std::stable_sort(out.begin(), out.end(), [](const FrRankLateness& a, const FrRankLateness& b) {
    return std::tie(a.pg_name, a.on_gpu, a.node, a.rank) < std::tie(b.pg_name, b.on_gpu, b.node, b.rank);
  });
  return out;
}

nlohmann::json rank_lateness_json(const std::vector<FrRankLateness>& v) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : v) {
    nlohmann::json j = {{"pg", r.pg_name},        {"rank", r.rank},
                        {"node", r.node},         {"signal", r.on_gpu ? "gpu" : "arrival"},
                        {"compared", r.compared}, {"late_ms", r.late_ms}};
    if (r.others_wait_share >= 0) j["others_wait_share"] = r.others_wait_share;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace dd::logs
