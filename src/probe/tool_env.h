// The environment variables distdoctor reads as its OWN settings (not as facts of the job), declared in one
// place with their meaning and read once. Job variables (NCCL_*, CUDA_*, launcher vars) are facts instead:
// see env_probe.h and NodeFacts::env.
#pragma once
#include <string>

namespace dd::probe {

struct ToolEnv {
  std::string token;          // DISTDOCTOR_TOKEN: job token of the cluster rendezvous ("" unset)
  std::string store_token;    // DD_STORE_TOKEN: token a supervisor hands its collective workers ("" unset)
  bool no_color = false;      // NO_COLOR set to a non-empty value: no colour in the text report
  std::string term;           // TERM: "dumb" turns colour off
  bool keep_tmp = false;      // DD_KEEP_TMP set: keep the collective run's temporary directory for debugging
  bool probe_timing = false;  // DISTDOCTOR_PROBE_TIMING set and not "0": print each probe's time on stderr
  std::string nvml_lib;       // DISTDOCTOR_NVML_LIB: load this libnvidia-ml instead of the loader's choice
  std::string cuda_lib;       // DISTDOCTOR_CUDA_LIB: load this libcuda instead of the loader's choice
  std::string status_line;    // DISTDOCTOR_STATUS_LINE: launch status line "1" always, "0" never
  std::string home;           // HOME: where the per-user job secret lives (user_secret.h)
  std::string config_home;    // XDG_CONFIG_HOME: the same, when set (it wins over HOME/.config)
};

// Reads the variables above from this process's environment (once; later calls return the same values).
const ToolEnv& tool_env();

// The same, from an explicit lookup (tests).
ToolEnv read_tool_env(const char* (*lookup)(const char* name));

}  // namespace dd::probe
