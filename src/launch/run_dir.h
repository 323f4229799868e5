// The folder of one launch run's logs: LOG_DIR/JOB, or LOG_DIR/JOB.2, JOB.3, ... when LOG_DIR/JOB holds an
// earlier run's logs (the same --job-id used again, a Slurm job requeued under its id): a run never writes
// into, or mixes its attempts with, another run's folder. Nodes of one run that share a filesystem (one host,
// NFS) share the folder: each folder holds a marker file naming its run (node rank 0's run id).
#pragma once
#include <string>
#include <vector>

#include "common/result.h"
#include "probe/fs.h"

namespace dd::launch {

inline constexpr const char* kRunMarker = ".distdoctor-run";

// Creates or finds this run's folder under log_dir; an Error when none can be made (the folder's errno).
Result<std::string> claim_run_dir(const std::string& log_dir, const std::string& job_id,
                                  const std::string& run_id, probe::Fs& fs = probe::local_fs());

// A fresh run id (16 hex digits from the system's random source).
std::string make_run_id();

// Why the log directory cannot take the workers' logs ("" when it can), refused before any node waits on
// this one: a read-only mount, a missing parent without rights, a filesystem with no free inode or byte.
// A missing one is made (0755, whatever the umask).
std::string log_dir_problem(const std::string& log_dir, probe::Fs& fs = probe::local_fs());

// Makes an attempt's folder (0755 whatever the umask: it holds the job's start-up hook) and creates each of
// its workers' log files empty (only a regular file or a new one), so that a full filesystem is named before
// any worker starts; the error's message names the file and, for ENOSPC, whether inodes or bytes ran out.
Status prepare_attempt_logs(const std::string& attempt_dir, const std::vector<std::string>& log_paths,
                            probe::Fs& fs = probe::local_fs());

// e's message, and for ENOSPC which ran out on the filesystem of dir: "cannot write X: no free inodes on
// the filesystem of DIR (No space left on device)", or "no space" when inodes are left.
std::string write_problem(const Error& e, const std::string& dir);

}  // namespace dd::launch
