// render_lateness_svg (fr_lateness_svg.h): panels stacked, each with its axes, grid, lines and legend.
#include "logs/fr/fr_lateness_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "common/chart_scale.h"
#include "common/xml_escape.h"

namespace dd::logs {

namespace {

constexpr double kW = 900, kPanelH = 300, kL = 70, kR = 220, kT = 40, kB = 45, kTop = 40;
std::string panel(const std::vector<const FrRankLateness*>& lines, double y0) {
  double xmax = 0, ymax = 1;  // at least 1 ms: a healthy panel draws flat lines near 0, not noise blown up
  for (const auto* r : lines)
    for (auto [x, y] : r->series) xmax = std::max(xmax, x), ymax = std::max(ymax, y);
  if (xmax <= 0) xmax = 1;
  const double xs = chart_tick_step(xmax), ys = chart_tick_step(ymax);
  xmax = std::ceil(xmax / xs) * xs;
  ymax = std::ceil(ymax / ys) * ys;
  const double pw = kW - kL - kR, ph = kPanelH - kT - kB;
  const auto X = [&](double x) { return kL + x / xmax * pw; };
  const auto Y = [&](double y) { return y0 + kT + ph - y / ymax * ph; };
  const FrRankLateness& f = *lines.front();
  std::string o = fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"13\">group {} ({}){}</text>\n", kL,
                              y0 + kT - 12, xml_escape(f.pg_name), xml_escape(f.pg_desc),
                              f.on_gpu                   ? ": from the collectives' GPU times"
                              : f.node >= 0              ? fmt::format(": node {}'s clock, arrivals", f.node)
                              : f.node == kClocksAligned ? ": every node on node rank 0's clock, arrivals"
                                                         : ": arrivals, one clock");
  for (double x = 0; x <= xmax + xs / 2; x += xs)
    o += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" font-size=\"11\" text-anchor=\"middle\">{4:g}</text>\n",
        X(x), Y(0), Y(ymax), Y(0) + 15, x);
  for (double y = 0; y <= ymax + ys / 2; y += ys)
    o += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3:.1f}\" y=\"{4:.1f}\" font-size=\"11\" text-anchor=\"end\">{5:g}</text>\n",
        X(0), Y(y), X(xmax), X(0) - 6, Y(y) + 4, y);
  o += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\">seconds</text>"
      "<text x=\"14\" y=\"{:.1f}\" font-size=\"11\" transform=\"rotate(-90 14 {:.1f})\" "
      "text-anchor=\"middle\">late (ms)</text>\n",
      X(xmax / 2), Y(0) + 32, Y(ymax / 2), Y(ymax / 2));
  for (size_t i = 0; i < lines.size(); ++i) {
    const FrRankLateness& r = *lines[i];
    const char* color = chart_line_color(i);
    std::string pts;
    for (auto [x, y] : r.series) pts += fmt::format("{:.1f},{:.1f} ", X(x), Y(y));
    o += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\" points=\"{}\"/>\n", color,
                     pts);
    const double ly = y0 + kT + 14 * static_cast<double>(i);
    o += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
        "stroke-width=\"2\"/>"
        "<text x=\"{4:.1f}\" y=\"{5:.1f}\" font-size=\"11\">rank {6}: {7:.1f} ms{8}</text>\n",
        kW - kR + 15, ly, kW - kR + 35, color, kW - kR + 40, ly + 4, r.rank, r.late_ms,
        r.others_wait_share >= 0 ? fmt::format(", others wait {:.0f}%", 100 * r.others_wait_share) : "");
  }
  return o;
}

}  // namespace

std::string render_lateness_svg(const std::vector<FrRankLateness>& ranks, const std::string& title) {
  std::map<std::tuple<std::string, bool, int>, std::vector<const FrRankLateness*>> panels;
  for (const auto& r : ranks)
    if (!r.series.empty()) panels[{r.pg_name, r.on_gpu, r.node}].push_back(&r);
  std::vector<std::vector<const FrRankLateness*>> order;
  for (auto& [key, lines] : panels) {
    // The latest ranks first: when a panel has more ranks than lines, the ones drawn are those that matter.
    std::stable_sort(lines.begin(), lines.end(),
                     [](const auto* a, const auto* b) { return a->late_ms > b->late_ms; });
    if (lines.size() > kLatenessLines) lines.resize(kLatenessLines);
    if (lines.size() >= 2) order.push_back(lines);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.size() > b.size(); });
  if (order.size() > kLatenessPanels) order.resize(kLatenessPanels);
  if (order.empty()) return "";
  const double h = kTop + kPanelH * static_cast<double>(order.size());
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"24\" font-size=\"15\">{3}</text>\n",
      kW, h, kL, xml_escape(title));
  for (size_t i = 0; i < order.size(); ++i) o += panel(order[i], kTop + kPanelH * static_cast<double>(i));
  return o + "</svg>\n";
}

}  // namespace dd::logs
