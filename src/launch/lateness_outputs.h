// What launch writes of each rank's lateness (issue 39), beside its report: ATTEMPT/lateness.svg at the end
// of each attempt (from every node's exit digests, logs/fr/fr_lateness_svg.h), and with --metrics FILE the
// gauges of each rank's lateness and of the others' wait for it, Prometheus text for node_exporter's textfile
// collector, rewritten at each live snapshot (this node's ranks) and at the attempt's end (every node's).
#pragma once
#include <string>
#include <vector>

#include "launch/launch_facts.h"
#include "logs/fr/fr_straggler.h"
#include "logs/fr/fr_summary.h"

namespace dd::launch {

inline constexpr const char* kLatenessChartName = "lateness.svg";

// At an attempt's end, from every node's digests merged once: RUN_DIR/ATTEMPT/lateness.svg when they compare
// two ranks or more, and with a metrics path its gauges. "" or why a file could not be written.
std::string save_attempt_lateness(const std::string& run_dir, const std::string& metrics_path,
                                  const std::string& job_id, const AttemptRecord& a);

// Writes the gauges of `s` (a live snapshot, or the merged exit digests), whose stragglers are `found`, to
// `path`, atomically; "" or why not.
std::string save_lateness_metrics(const std::string& path, const std::string& job_id, int attempt,
                                  const logs::FrSummary& s, const std::vector<logs::FrStraggler>& found);

}  // namespace dd::launch
