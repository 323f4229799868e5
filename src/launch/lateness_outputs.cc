// save_lateness_chart and save_lateness_metrics (lateness_outputs.h).
#include "launch/lateness_outputs.h"

#include <fmt/format.h>

#include "common/wall_clock.h"
#include "launch/report_parts.h"
#include "logs/fr/fr_lateness.h"
#include "logs/fr/fr_lateness_svg.h"
#include "probe/fs.h"
#include "report/metrics.h"

namespace dd::launch {

namespace {

std::string metrics_text(const std::string& job_id, int attempt,
                         const std::vector<logs::FrRankLateness>& ranks,
                         const std::vector<logs::FrStraggler>& found) {
  nlohmann::json stragglers = nlohmann::json::array();
  for (const auto& g : found)
    stragglers.push_back({{"pg", g.pg_name}, {"rank", g.rank}, {"signal", g.on_gpu ? "gpu" : "arrival"}});
  const nlohmann::json doc = {{"job", job_id},
                              {"attempt", attempt},
                              {"ranks", logs::rank_lateness_json(ranks)},
                              {"stragglers", stragglers}};
  return report::launch_metrics(doc, unix_seconds_now());
}

std::string written(const Status& st) { return st ? "" : st.error().message(); }

}  // namespace

std::string save_attempt_lateness(const std::string& run_dir, const std::string& metrics_path,
                                  const std::string& job_id, const AttemptRecord& a) {
  const auto s = parts::attempt_fr_summary(a);
  if (!s) return "";
  const std::vector<logs::FrRankLateness> ranks = logs::rank_lateness(*s);
  std::string why;
  const std::string svg = logs::render_lateness_svg(
      ranks, fmt::format("How late each rank was in its collectives (attempt {})", a.attempt));
  if (!svg.empty())
    why = written(
        probe::local_fs().write_atomically(fmt::format("{}/{}/{}", run_dir, a.attempt, kLatenessChartName),
                                           svg, {.symlinks = Symlinks::refuse, .sync = false}));
  if (!metrics_path.empty()) {
    const std::string more = written(probe::local_fs().write_atomically(
        metrics_path, metrics_text(job_id, a.attempt, ranks, logs::find_stragglers(*s))));
    why += (why.empty() || more.empty() ? "" : "; ") + more;
  }
  return why;
}

std::string save_lateness_metrics(const std::string& path, const std::string& job_id, int attempt,
                                  const logs::FrSummary& s, const std::vector<logs::FrStraggler>& found) {
  return written(
      probe::local_fs().write_atomically(path, metrics_text(job_id, attempt, logs::rank_lateness(s), found)));
}

}  // namespace dd::launch
