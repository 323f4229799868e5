// Tests for chart_scale.h: round axis steps and the line colours both charts take.
#include "common/chart_scale.h"

#include <gtest/gtest.h>

#include <string>

#include "comm/svg_plot.h"

namespace dd {
namespace {

TEST(ChartScale, TickStepIsOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(chart_tick_step(5), 1);
  EXPECT_DOUBLE_EQ(chart_tick_step(9), 2);
  EXPECT_DOUBLE_EQ(chart_tick_step(24), 5);
  EXPECT_DOUBLE_EQ(chart_tick_step(370), 100);
  EXPECT_DOUBLE_EQ(chart_tick_step(0.03), 0.01);
}

TEST(ChartScale, LineColoursRepeatAfterTenAndDiffer) {
  EXPECT_STREQ(chart_line_color(0), chart_line_color(10));
  EXPECT_STRNE(chart_line_color(0), chart_line_color(1));
  EXPECT_STRNE(chart_line_color(8), chart_line_color(0));  // bench's plot had eight and reused them from 8
}

TEST(ChartScale, BusbwPlotAxisEndsOnARoundTickAboveTheHighestPoint) {
  std::string svg =
      comm::render_busbw_svg({{"all_reduce", {{1 << 20, 120.0}, {1 << 26, 352.0}}}}, "t", 0, "");
  // 352 GB/s: steps of 100 (about five ticks), the top tick 400.
  EXPECT_NE(svg.find(">400<"), std::string::npos) << svg;
  EXPECT_EQ(svg.find(">500<"), std::string::npos) << svg;
  EXPECT_NE(svg.find(chart_line_color(0)), std::string::npos);
}

}  // namespace
}  // namespace dd
