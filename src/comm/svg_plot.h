// A small SVG line chart of bus bandwidth against message size (log2 x axis), one line per series.
#pragma once
#include <string>
#include <vector>

namespace dd::comm {

struct PlotSeries {
  std::string label;                              // "all_reduce out-of-place"
  std::vector<std::pair<double, double>> points;  // (bytes, busbw GB/s)
};

// `limit_gbps` > 0 draws a dashed horizontal line labelled `limit_label`.
std::string render_busbw_svg(const std::vector<PlotSeries>& series, const std::string& title,
                             double limit_gbps, const std::string& limit_label);

}  // namespace dd::comm
