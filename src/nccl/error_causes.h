// What an NCCL/CUDA collective failure means: the error strings NCCL, CUDA and the collective engines print,
// each mapped to the finding id a failed run reports and the fix a person should apply. One table, used by
// the collective runner (comm/); the known-error catalogue (data/known_errors.json) stays the table for
// whole job logs, whose findings have their own ids.
#pragma once
#include <string>
#include <vector>

namespace dd::nccl {

struct ErrorCause {
  std::string id;  // "comm.gpu.duplicate", ...; "comm.error" when nothing in the table matched
  std::string fix;
};

// The cause of a failed run from the worker's error message and the NCCL WARN lines of its log.
ErrorCause classify_comm_error(const std::string& msg, const std::vector<std::string>& nccl_warnings);

// The table row of a finding id (its fix), for findings the runner raises itself ("comm.gpu.too_few").
ErrorCause error_cause(const std::string& id);

}  // namespace dd::nccl
