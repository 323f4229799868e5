// Reads distdoctor's own settings from the environment, once (see tool_env.h for each variable).
#include "probe/tool_env.h"

#include <cstdlib>
#include <string_view>

namespace dd::probe {

ToolEnv read_tool_env(const char* (*lookup)(const char* name)) {
  auto str = [&](const char* n) {
    const char* v = lookup(n);
    return std::string(v ? v : "");
  };
  ToolEnv t;
  t.token = str("DISTDOCTOR_TOKEN");
  t.store_token = str("DD_STORE_TOKEN");
  t.no_color = !str("NO_COLOR").empty();  // no-color.org: set to a non-empty value
  t.term = str("TERM");
  t.keep_tmp = lookup("DD_KEEP_TMP") != nullptr;
  std::string timing = str("DISTDOCTOR_PROBE_TIMING");
  t.probe_timing = !timing.empty() && timing != "0";
  t.nvml_lib = str("DISTDOCTOR_NVML_LIB");
  t.cuda_lib = str("DISTDOCTOR_CUDA_LIB");
  t.status_line = str("DISTDOCTOR_STATUS_LINE");
  t.home = str("HOME");
  t.config_home = str("XDG_CONFIG_HOME");
  return t;
}

const ToolEnv& tool_env() {
  static const ToolEnv env = read_tool_env([](const char* n) -> const char* { return std::getenv(n); });
  return env;
}

}  // namespace dd::probe
