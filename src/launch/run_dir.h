// The folder of one launch run's logs: LOG_DIR/JOB, or LOG_DIR/JOB.2, JOB.3, ... when LOG_DIR/JOB holds an
// earlier run's logs (the same --job-id used again, a Slurm job requeued under its id): a run never writes
// into, or mixes its attempts with, another run's folder. Nodes of one run that share a filesystem (one host,
// NFS) share the folder: each folder holds a marker file naming its run (node rank 0's run id).
#pragma once
#include <string>

#include "common/result.h"

namespace dd::launch {

inline constexpr const char* kRunMarker = ".distdoctor-run";

// Creates or finds this run's folder under log_dir; an Error when none can be made (the folder's errno).
Result<std::string> claim_run_dir(const std::string& log_dir, const std::string& job_id, const std::string& run_id);

// A fresh run id (16 hex digits from the system's random source).
std::string make_run_id();

}  // namespace dd::launch
