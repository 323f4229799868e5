// The figures of a run in Prometheus' text exposition format (version 0.0.4), for node_exporter's textfile
// collector (`--metrics FILE`). Names follow Prometheus' conventions: a distdoctor_ prefix, the command, base
// units in the name (_seconds, _bytes_per_second, _ratio), gauges only (each file is one run's snapshot).
// Built from the JSON each command prints, so the metrics and --json never disagree. Pure.
//   check: the verdict, findings by severity, each warn/fail finding by id, the collective pass (bus and
//          algorithm bandwidth, time, wrong elements per collective and size), TCP mesh connect times
//   bench: per collective, size, dtype and in-place: bandwidths, time, wrong elements, share of the link
//   launch: per rank and process group, its lateness in collectives and the others' wait for it; the
//           stragglers named
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace dd::report {

// `report_json`: render_json of check's report (with the cluster's facts under "facts" on rank 0).
std::string check_metrics(const nlohmann::json& report_json, double unix_time);
// `bench_json`: bench's --json document.
std::string bench_metrics(const nlohmann::json& bench_json, double unix_time);

// `doc`: {"job", "attempt", "ranks": logs::rank_lateness_json, "stragglers": [{"pg", "rank", "signal"}]}.
std::string launch_metrics(const nlohmann::json& doc, double unix_time);

// A label value as the format writes it: backslash, double quote and newline escaped.
std::string metric_label_value(const std::string& v);

}  // namespace dd::report
