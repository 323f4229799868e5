// What launch writes of each rank's lateness (issue 39), beside its report: ATTEMPT/lateness.svg at the end
// of each attempt (from every node's exit digests, logs/fr/fr_lateness_svg.h), and with --metrics FILE the
// gauges of each rank's lateness and of the others' wait for it, Prometheus text for node_exporter's textfile
// collector, rewritten at each live snapshot (this node's ranks) and at the attempt's end (every node's).
#pragma once
#include <string>
#include <vector>

#include "launch/launch_facts.h"
#include "logs/fr/fr_summary.h"

namespace dd::launch {

inline constexpr const char* kLatenessChartName = "lateness.svg";

// Writes RUN_DIR/ATTEMPT/lateness.svg when the attempt's digests compare two ranks or more; "" or why not.
std::string save_lateness_chart(const std::string& run_dir, const AttemptRecord& a);

// Writes the gauges of `s` (a snapshot or the merged exit digests) to `path`, atomically; "" or why not.
std::string save_lateness_metrics(const std::string& path, const std::string& job_id, int attempt,
                                  const logs::FrSummary& s);

}  // namespace dd::launch
