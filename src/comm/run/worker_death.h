// The finding for a worker of a pass that died (a signal or an exit before its results): its rank, the op it
// was in, its last output, and for SIGKILL whether the memory cgroup's OOM killer count rose during the run.
#pragma once
#include <string>

#include "comm/run/run_findings.h"
#include "report/finding.h"

namespace dd::comm {

report::Finding died_worker_finding(const RunRecord& rec, int w);

// The last max_lines non-empty lines of a worker's log, joined with " | " ("" when unreadable).
std::string tail_of_file(const std::string& path, size_t max_lines);

}  // namespace dd::comm
