// GPU probe: everything NVML says about each GPU, the P2P read matrix and the `nvidia-smi topo -m` matrix.
#pragma once
#include "dynlib/nvml.h"
#include "probe/facts.h"
#include "probe/fs.h"

namespace dd::probe {

// Reads every GPU through an already loaded NVML table (calls nvmlInit itself, and nvmlShutdown unless told
// not to: a probe child exits next, and its parent does not wait for that). Missing symbols and failing calls
// leave -1 / "" in the facts; nothing here aborts. `fs` gives /proc/PID/comm and sysfs.
GpuFacts probe_gpu_with(const dynlib::Nvml& nvml, const Fs& fs, bool shutdown = true);

// Loads NVML (DISTDOCTOR_NVML_LIB, from tool_env(), when set) and probes. Run it in a child process
// (collect.cc does): the driver may hang or crash.
GpuFacts probe_gpu(const Fs& fs);
// The same with the library override given explicitly (empty path: the loader's choice).
GpuFacts probe_gpu(const Fs& fs, const dynlib::PathOverride& nvml_lib);

}  // namespace dd::probe
