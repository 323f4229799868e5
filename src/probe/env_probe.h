// Environment probe: a snapshot of the process environment (the seam tests replace) and the subset of it
// that matters to distributed jobs, with anything that looks like a secret left out.
#pragma once
#include <map>
#include <string>

namespace dd::probe {

using EnvMap = std::map<std::string, std::string>;

// Every variable of this process (from environ).
EnvMap read_environment();

// NCCL_*, CUDA_*, GLOO_*, UCX_*, OMPI_*, NVIDIA_*, TORCH_*, SLURM_*, PMI_*, PMIX_*, launcher variables,
// LD_LIBRARY_PATH, PYTHONPATH; never a secret name (is_secret_name); URL passwords in values redacted.
bool env_name_wanted(const std::string& name);
EnvMap filter_env(const EnvMap& all);

// Value of `name` or "" (and whether it is set at all).
std::string env_get(const EnvMap& env, const std::string& name, bool* is_set = nullptr);

}  // namespace dd::probe
