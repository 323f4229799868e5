// What the SVG charts (bench's busbw plot, launch's lateness chart) share: the line colours, in the order
// lines take them, and a round step for an axis.
#pragma once
#include <cmath>
#include <cstddef>
#include <iterator>

namespace dd {

// The colour of the i-th line of a chart (they repeat after ten).
inline const char* chart_line_color(size_t i) {
  static constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                            "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};
  return kColors[i % std::size(kColors)];
}

// A round step for an axis that must show `top` (> 0): 1, 2 or 5 times a power of ten, about five ticks.
inline double chart_tick_step(double top) {
  const double raw = top / 5, p = std::pow(10.0, std::floor(std::log10(raw)));
  return raw / p <= 1 ? p : raw / p <= 2 ? 2 * p : raw / p <= 5 ? 5 * p : 10 * p;
}

}  // namespace dd
