// Runs all probes in order; a probe that fails records an error in probe_errors and leaves defaults.
#include "probe/collect.h"

#include "probe/fs.h"
#include "probe/host_probe.h"

namespace dd::probe {

NodeFacts collect_node_facts(const ProbeOptions& opt) {
  auto fs = make_real_fs();
  NodeFacts f;
  f.host = probe_host(*fs);
  if (!opt.skip_gpu) f.gpu.nvml_error = "NVML probe not built yet";
  return f;
}

}  // namespace dd::probe
