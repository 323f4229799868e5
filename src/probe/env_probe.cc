// Environment snapshot and the filter for the facts' env map.
#include "probe/env_probe.h"

#include <unistd.h>

#include <array>

#include "common/redact.h"

extern char** environ;

namespace dd::probe {

EnvMap read_environment() {
  EnvMap m;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    m.emplace(kv.substr(0, eq), kv.substr(eq + 1));  // first definition wins, as getenv does
  }
  return m;
}

bool env_name_wanted(const std::string& name) {
  if (is_secret_name(name)) return false;
  static constexpr std::array<const char*, 11> kPrefixes = {"NCCL_", "CUDA_",   "GLOO_",        "UCX_",
                                                            "OMPI_", "NVIDIA_", "TORCH_",       "SLURM_",
                                                            "PMI_",  "PMIX_",   "TORCHELASTIC_"};
  for (const char* p : kPrefixes)
    if (name.rfind(p, 0) == 0) return true;
  static constexpr std::array<const char*, 11> kNames = {
      "MASTER_ADDR", "MASTER_PORT",     "RANK",       "WORLD_SIZE", "LOCAL_RANK",     "LOCAL_WORLD_SIZE",
      "NODE_RANK",   "LD_LIBRARY_PATH", "PYTHONPATH", "LD_PRELOAD", "OMP_NUM_THREADS"};
  for (const char* n : kNames)
    if (name == n) return true;
  return false;
}

EnvMap filter_env(const EnvMap& all) {
  EnvMap out;
  for (const auto& [k, v] : all)
    if (env_name_wanted(k)) out.emplace(k, redact_value(k, v));  // URL passwords too
  return out;
}

std::string env_get(const EnvMap& env, const std::string& name, bool* is_set) {
  auto it = env.find(name);
  if (is_set) *is_set = it != env.end();
  return it == env.end() ? std::string() : it->second;
}

}  // namespace dd::probe
