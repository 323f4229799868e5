// The names of NCCL's environment settings: every NCCL_* name NCCL reads (NCCL_PARAM, DEFINE_NCCL_PARAM and
// ncclGetEnv in NCCL's sources, 2.12 to 2.30), the names NCCL used to read and no longer does, and NCCL_*
// names that other software sets (container images, PyTorch, net plugins, nccl-tests). Used to tell a typo
// from a setting.
#pragma once
#include <string>
#include <string_view>

namespace dd::nccl {

// True when some NCCL release 2.12 or later reads this variable ("NCCL_ALGO").
bool nccl_env_name_known(std::string_view name);

// A name older NCCL read and newer NCCL ignores: the replacement or what happened ("" when not retired).
std::string nccl_env_name_retired(std::string_view name);

// NCCL_* names set or read by others (NCCL_VERSION of NGC images, PyTorch's NCCL_ASYNC_ERROR_HANDLING,
// plugin families such as NCCL_SHARP_*): not NCCL's, not a typo.
bool nccl_env_name_foreign(std::string_view name);

// The known name closest to `name` within a small edit distance (a typo), or "".
std::string nccl_env_nearest_name(std::string_view name);

}  // namespace dd::nccl
