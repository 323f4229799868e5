// SVG writer for busbw-vs-size plots: axes with power-of-two size ticks, gridlines, legend, link limit.
#include "comm/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace dd::comm {

namespace {
std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}
std::string size_label(double b) {
  const char* u[] = {"B", "K", "M", "G", "T"};
  int i = 0;
  while (b >= 1024 && i < 4) {
    b /= 1024;
    ++i;
  }
  char buf[32];
  snprintf(buf, sizeof buf, "%g%s", b, u[i]);
  return buf;
}
const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                         "#9467bd", "#8c564b", "#e377c2", "#17becf"};
}  // namespace

std::string render_busbw_svg(const std::vector<PlotSeries>& series, const std::string& title,
                             double limit_gbps, const std::string& limit_label) {
  const double W = 900, H = 540, L = 70, R = 230, T = 50, B = 60;
  double xmin = 1e300, xmax = 0, ymax = std::max(limit_gbps, 1.0);
  for (const auto& s : series)
    for (auto [x, y] : s.points) {
      if (x <= 0) continue;
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymax = std::max(ymax, y);
    }
  if (xmax <= 0) xmin = 1, xmax = 2;
  double lx0 = std::floor(std::log2(xmin)), lx1 = std::ceil(std::log2(xmax));
  if (lx1 <= lx0) lx1 = lx0 + 1;
  double ystep = std::pow(10, std::floor(std::log10(ymax * 1.1 / 5)));
  if (ymax * 1.1 / ystep > 10) ystep *= 2;
  double ytop = std::ceil(ymax * 1.05 / ystep) * ystep;
  auto X = [&](double b) { return L + (std::log2(b) - lx0) / (lx1 - lx0) * (W - L - R); };
  auto Y = [&](double v) { return H - B - v / ytop * (H - T - B); };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
       "fill=\"white\"/>\n";
  o << "<text x=\"" << W / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"16\">" << esc(title)
    << "</text>\n";
  int xstep = int(std::max(1.0, std::ceil((lx1 - lx0) / 14)));
  for (double e = lx0; e <= lx1; e += xstep) {
    double x = X(std::pow(2, e));
    o << "<line x1=\"" << x << "\" y1=\"" << T << "\" x2=\"" << x << "\" y2=\"" << H - B
      << "\" stroke=\"#eee\"/>\n";
    o << "<text x=\"" << x << "\" y=\"" << H - B + 18 << "\" text-anchor=\"middle\">"
      << size_label(std::pow(2, e)) << "</text>\n";
  }
  for (double v = 0; v <= ytop + 1e-9; v += ystep) {
    double y = Y(v);
    o << "<line x1=\"" << L << "\" y1=\"" << y << "\" x2=\"" << W - R << "\" y2=\"" << y
      << "\" stroke=\"#eee\"/>\n";
    o << "<text x=\"" << L - 8 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">" << v << "</text>\n";
  }
  o << "<line x1=\"" << L << "\" y1=\"" << H - B << "\" x2=\"" << W - R << "\" y2=\"" << H - B
    << "\" stroke=\"black\"/>\n";
  o << "<line x1=\"" << L << "\" y1=\"" << T << "\" x2=\"" << L << "\" y2=\"" << H - B
    << "\" stroke=\"black\"/>\n";
  o << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 16
    << "\" text-anchor=\"middle\">message size (bytes)</text>\n";
  o << "<text transform=\"translate(18," << (T + H - B) / 2
    << ") rotate(-90)\" text-anchor=\"middle\">bus bandwidth (GB/s)</text>\n";
  if (limit_gbps > 0) {
    double y = Y(limit_gbps);
    o << "<line x1=\"" << L << "\" y1=\"" << y << "\" x2=\"" << W - R << "\" y2=\"" << y
      << "\" stroke=\"#888\" stroke-dasharray=\"6,4\"/>\n";
    o << "<text x=\"" << L + 6 << "\" y=\"" << y - 6 << "\" fill=\"#555\">" << esc(limit_label)
      << "</text>\n";
  }
  for (size_t i = 0; i < series.size(); ++i) {
    const auto& s = series[i];
    const char* c = kColors[i % 8];
    std::ostringstream pts;
    for (auto [x, y] : s.points)
      if (x > 0) pts << X(x) << "," << Y(y) << " ";
    o << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\" points=\"" << pts.str()
      << "\"/>\n";
    for (auto [x, y] : s.points)
      if (x > 0)
        o << "<circle cx=\"" << X(x) << "\" cy=\"" << Y(y) << "\" r=\"2.5\" fill=\"" << c << "\"/>\n";
    double ly = T + 10 + 20 * double(i);
    o << "<line x1=\"" << W - R + 15 << "\" y1=\"" << ly << "\" x2=\"" << W - R + 40 << "\" y2=\"" << ly
      << "\" stroke=\"" << c << "\" stroke-width=\"2\"/>\n";
    o << "<text x=\"" << W - R + 46 << "\" y=\"" << ly + 4 << "\">" << esc(s.label) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace dd::comm
