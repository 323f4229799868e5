// SVG writer for busbw-vs-size plots: axes with power-of-two size ticks, gridlines, legend, link limit.
#include "comm/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/chart_scale.h"
#include "common/xml_escape.h"

namespace dd::comm {

namespace {
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

// Plot area and the data-to-pixel mapping: log2 size on x, GB/s on y.
struct Frame {
  static constexpr double W = 900, H = 540, L = 70, R = 230, T = 50, B = 60;
  double lx0 = 0, lx1 = 1, ytop = 1, ystep = 1;
  double X(double bytes) const { return L + (std::log2(bytes) - lx0) / (lx1 - lx0) * (W - L - R); }
  double Y(double v) const { return H - B - v / ytop * (H - T - B); }
};

Frame frame_for(const std::vector<PlotSeries>& series, double limit_gbps) {
  double xmin = 1e300, xmax = 0, ymax = std::max(limit_gbps, 1.0);
  for (const auto& s : series)
    for (auto [x, y] : s.points) {
      if (x <= 0) continue;
      xmin = std::min(xmin, x);
      xmax = std::max(xmax, x);
      ymax = std::max(ymax, y);
    }
  if (xmax <= 0) xmin = 1, xmax = 2;
  Frame f;
  f.lx0 = std::floor(std::log2(xmin));
  f.lx1 = std::ceil(std::log2(xmax));
  if (f.lx1 <= f.lx0) f.lx1 = f.lx0 + 1;
  f.ystep = chart_tick_step(ymax * 1.05);
  f.ytop = std::ceil(ymax * 1.05 / f.ystep) * f.ystep;
  return f;
}

void draw_axes(std::ostream& o, const Frame& f) {
  const double W = Frame::W, H = Frame::H, L = Frame::L, R = Frame::R, T = Frame::T, B = Frame::B;
  int xstep = int(std::max(1.0, std::ceil((f.lx1 - f.lx0) / 14)));
  for (double e = f.lx0; e <= f.lx1; e += xstep) {
    double x = f.X(std::pow(2, e));
    o << "<line x1=\"" << x << "\" y1=\"" << T << "\" x2=\"" << x << "\" y2=\"" << H - B
      << "\" stroke=\"#eee\"/>\n";
    o << "<text x=\"" << x << "\" y=\"" << H - B + 18 << "\" text-anchor=\"middle\">"
      << size_label(std::pow(2, e)) << "</text>\n";
  }
  for (double v = 0; v <= f.ytop + 1e-9; v += f.ystep) {
    double y = f.Y(v);
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
}

void draw_series(std::ostream& o, const Frame& f, const PlotSeries& s, size_t i) {
  const double W = Frame::W, R = Frame::R, T = Frame::T;
  const char* c = chart_line_color(i);
  std::ostringstream pts;
  for (auto [x, y] : s.points)
    if (x > 0) pts << f.X(x) << "," << f.Y(y) << " ";
  o << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\" points=\"" << pts.str() << "\"/>\n";
  for (auto [x, y] : s.points)
    if (x > 0)
      o << "<circle cx=\"" << f.X(x) << "\" cy=\"" << f.Y(y) << "\" r=\"2.5\" fill=\"" << c << "\"/>\n";
  double ly = T + 10 + 20 * double(i);
  o << "<line x1=\"" << W - R + 15 << "\" y1=\"" << ly << "\" x2=\"" << W - R + 40 << "\" y2=\"" << ly
    << "\" stroke=\"" << c << "\" stroke-width=\"2\"/>\n";
  o << "<text x=\"" << W - R + 46 << "\" y=\"" << ly + 4 << "\">" << xml_escape(s.label) << "</text>\n";
}

}  // namespace

std::string render_busbw_svg(const std::vector<PlotSeries>& series, const std::string& title,
                             double limit_gbps, const std::string& limit_label) {
  const Frame f = frame_for(series, limit_gbps);
  const double W = Frame::W, H = Frame::H, L = Frame::L, R = Frame::R;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
       "fill=\"white\"/>\n";
  o << "<text x=\"" << W / 2 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"16\">" << xml_escape(title)
    << "</text>\n";
  draw_axes(o, f);
  if (limit_gbps > 0) {
    double y = f.Y(limit_gbps);
    o << "<line x1=\"" << L << "\" y1=\"" << y << "\" x2=\"" << W - R << "\" y2=\"" << y
      << "\" stroke=\"#888\" stroke-dasharray=\"6,4\"/>\n";
    o << "<text x=\"" << L + 6 << "\" y=\"" << y - 6 << "\" fill=\"#555\">" << xml_escape(limit_label)
      << "</text>\n";
  }
  for (size_t i = 0; i < series.size(); ++i) draw_series(o, f, series[i], i);
  o << "</svg>\n";
  return o.str();
}

}  // namespace dd::comm
