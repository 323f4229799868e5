// CUDA probe: environment part in-process, driver part through a child's JSON answer.
#include "probe/cuda_probe.h"

#include "common/safe_text.h"
#include "dynlib/cuda_driver.h"
#include "probe/tool_env.h"
#include "common/json_limits.h"

namespace dd::probe {

CudaFacts cuda_env_facts(const EnvMap& env) {
  CudaFacts f;
  f.visible_devices = env_get(env, "CUDA_VISIBLE_DEVICES", &f.visible_devices_set);
  return f;
}

std::string cuda_count_child() {
  nlohmann::json j;
  auto n = dynlib::cuda_device_count({tool_env().cuda_lib, "DISTDOCTOR_CUDA_LIB"});
  if (n)
    j["device_count"] = *n;
  else
    j["error"] = n.error().message();
  return json_text(j);
}

void apply_cuda_answer(const Result<std::string>& answer, CudaFacts& f) {
  if (!answer) {
    f.driver_error = "CUDA driver probe " + answer.error().message();
    return;
  }
  try {
    auto j = dd::parse_json(*answer);
    f.device_count = j.value("device_count", -1);
    f.driver_error = j.value("error", "");
    f.driver_loaded = f.driver_error.empty();
  } catch (const std::exception& e) {
    f.driver_error = std::string("unreadable answer from the CUDA child: ") + e.what();
  }
}

}  // namespace dd::probe
