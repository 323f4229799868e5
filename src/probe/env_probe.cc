// Environment snapshot and the filter for the facts' env map.
#include "probe/env_probe.h"

#include <unistd.h>

#include <array>
#include <span>

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

namespace {

// The variables a launcher gives its workers: every name of every launcher convention launch/ knows
// (launch/launcher_convention.h, own_vars: torchrun's, Paddle's, MindSpore's...) and launch's own, so that
// `check` run inside a job sees who started it (rules/gpu_busy.cc). launcher_convention_test fails when a
// convention sets a name this list does not keep: a new convention adds its names here.
// clang-format off
constexpr const char* kLauncherPrefixes[] = {"TORCHELASTIC_", "PADDLE_", "MS_"};
constexpr const char* kLauncherNames[] = {
    "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",  // torchrun
    "NODE_RANK", "GROUP_RANK", "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE", "ROLE_NAME",
    "FLAGS_selected_gpus",                                                       // Paddle
    "RANK_ID", "RANK_SIZE",                                                      // MindSpore
    "CROSS_RANK", "CROSS_SIZE", "LOCAL_SIZE",                                    // DeepSpeed
    "OMP_NUM_THREADS", "PYTHONUNBUFFERED", "DISTDOCTOR_LAUNCH_ATTEMPT",          // launch's own
    "CUDA_VISIBLE_DEVICES",
};
// clang-format on

}  // namespace

bool env_name_wanted(const std::string& name) {
  if (is_secret_name(name)) return false;
  static constexpr std::array<const char*, 10> kPrefixes = {"NCCL_",   "CUDA_",  "GLOO_",  "UCX_", "OMPI_",
                                                            "NVIDIA_", "TORCH_", "SLURM_", "PMI_", "PMIX_"};
  for (const auto& list :
       {std::span<const char* const>(kPrefixes), std::span<const char* const>(kLauncherPrefixes)})
    for (const char* p : list)
      if (name.rfind(p, 0) == 0) return true;
  static constexpr std::array<const char*, 3> kNames = {"LD_LIBRARY_PATH", "PYTHONPATH", "LD_PRELOAD"};
  for (const auto& list :
       {std::span<const char* const>(kNames), std::span<const char* const>(kLauncherNames)})
    for (const char* n : list)
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
