// save_lateness_chart and save_lateness_metrics (lateness_outputs.h).
#include "launch/lateness_outputs.h"

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/wall_clock.h"
#include "launch/report_parts.h"
#include "logs/fr/fr_lateness.h"
#include "logs/fr/fr_lateness_svg.h"
#include "logs/fr/fr_straggler.h"
#include "report/metrics.h"

namespace dd::launch {

std::string save_lateness_chart(const std::string& run_dir, const AttemptRecord& a) {
  const auto s = parts::attempt_fr_summary(a);
  if (!s) return "";
  const std::string svg = logs::render_lateness_svg(
      logs::rank_lateness(*s),
      fmt::format("How late each rank was in its collectives (attempt {})", a.attempt));
  if (svg.empty()) return "";
  const Status st = write_file_atomically(fmt::format("{}/{}/{}", run_dir, a.attempt, kLatenessChartName),
                                          svg, {.symlinks = Symlinks::refuse, .sync = false});
  return st ? "" : st.error().message();
}

std::string save_lateness_metrics(const std::string& path, const std::string& job_id, int attempt,
                                  const logs::FrSummary& s) {
  nlohmann::json stragglers = nlohmann::json::array();
  for (const auto& g : logs::find_stragglers(s))
    stragglers.push_back({{"pg", g.pg_name}, {"rank", g.rank}, {"signal", g.on_gpu ? "gpu" : "arrival"}});
  const nlohmann::json doc = {{"job", job_id},
                              {"attempt", attempt},
                              {"ranks", logs::rank_lateness_json(logs::rank_lateness(s))},
                              {"stragglers", stragglers}};
  const Status st = write_file_atomically(path, report::launch_metrics(doc, unix_seconds_now()));
  return st ? "" : st.error().message();
}

}  // namespace dd::launch
