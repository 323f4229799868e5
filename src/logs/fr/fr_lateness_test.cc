// Every rank's lateness (fr_lateness.h) and its chart (fr_lateness_svg.h), on the 4x H200 recordings of
// fixtures/launch/h200x4_stragglers: rank 1's slow data loader (arrivals), a process sharing rank 1's GPU
// (GPU times), and a healthy run.
#include "logs/fr/fr_lateness.h"

#include <gtest/gtest.h>

#include <string>

#include "logs/fr/fr_analysis.h"
#include "logs/fr/fr_lateness_svg.h"

namespace dd::logs {
namespace {

FrSummary recorded4(const std::string& kase) {
  std::vector<FlightRecord> records;
  for (int rank = 0; rank < 4; ++rank) {
    auto r = read_flight_record_file(std::string(DD_FIXTURE_DIR) + "/launch/h200x4_stragglers/" + kase +
                                     "/run/0/flight_recorder/exit_rank" + std::to_string(rank));
    EXPECT_TRUE(r.ok()) << r.error().message();
    if (!r.ok()) continue;
    r->rank = rank;
    records.push_back(std::move(*r));
  }
  FrSummary s = summarize_flight_records(records);
  for (auto& r : s.ranks) r.node = 0;  // one node, as launch marks its own ranks
  return s;
}

const FrRankLateness* lateness_of(const std::vector<FrRankLateness>& v, int rank, bool on_gpu) {
  for (const auto& r : v)
    if (r.rank == rank && r.on_gpu == on_gpu && r.pg_name == "0") return &r;
  return nullptr;
}

TEST(FrLateness, EveryRankHasItsFiguresAndTheLateOneStandsOut) {
  const auto v = rank_lateness(recorded4("loader"));
  for (int rank = 0; rank < 4; ++rank) ASSERT_TRUE(lateness_of(v, rank, false)) << rank;
  const FrRankLateness& late = *lateness_of(v, 1, false);
  EXPECT_GT(late.late_ms, 50);
  EXPECT_GT(late.others_wait_share, 0.5);
  EXPECT_EQ(late.series.size(), late.compared);
  for (int rank : {0, 2, 3}) {
    EXPECT_LT(lateness_of(v, rank, false)->late_ms, 1) << rank;
    EXPECT_LT(lateness_of(v, rank, false)->others_wait_share, 0.05) << rank;
  }
  const auto j = rank_lateness_json(v);
  ASSERT_EQ(j.size(), v.size());
  EXPECT_FALSE(j[0].contains("series")) << "the gauges carry the figures, not the series";
}

TEST(FrLateness, GpuTimesGiveTheirOwnFigures) {
  const auto v = rank_lateness(recorded4("gpu_hog"));
  ASSERT_TRUE(lateness_of(v, 1, true));
  ASSERT_TRUE(lateness_of(v, 1, false));
  EXPECT_LT(lateness_of(v, 1, false)->late_ms, 1) << "it enqueues in time";
  // Half its collectives (the big all_reduce) start 27 ms late, the small ones after them together: the
  // median sits on either side, the share of the others' time does not.
  EXPECT_GT(lateness_of(v, 1, true)->others_wait_share, 0.4);
  EXPECT_LT(lateness_of(v, 0, true)->others_wait_share, 0.05);
}

TEST(FrLateness, TheChartHasAPanelPerGroupAndClockAndALinePerRank) {
  const std::string svg = render_lateness_svg(rank_lateness(recorded4("gpu_hog")), "attempt 0");
  ASSERT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  size_t lines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1))
    ++lines;
  EXPECT_EQ(lines, 8u) << "arrivals and GPU times, 4 ranks each";
  EXPECT_NE(svg.find("from the collectives' GPU times"), std::string::npos);
  EXPECT_NE(svg.find("node 0's clock"), std::string::npos);
  // One rank has nobody to be late against: nothing to draw.
  FrSummary one = recorded4("healthy");
  one.ranks.resize(1);
  EXPECT_EQ(render_lateness_svg(rank_lateness(one), "x"), "");
  // A title with markup is escaped.
  EXPECT_NE(render_lateness_svg(rank_lateness(recorded4("healthy")), "<b>&").find("&lt;b&gt;&amp;"),
            std::string::npos);
}

}  // namespace
}  // namespace dd::logs
