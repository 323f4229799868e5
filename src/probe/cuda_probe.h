// CUDA probe: CUDA_VISIBLE_DEVICES as set, and how many devices the CUDA driver sees under it
// (cuInit + cuDeviceGetCount in a child process, so a broken driver cannot hang or crash distdoctor).
#pragma once
#include "common/result.h"
#include "probe/env_probe.h"
#include "probe/facts.h"

namespace dd::probe {

CudaFacts cuda_env_facts(const EnvMap& env);

// Child side: {"device_count": N} or {"error": "..."}.
std::string cuda_count_child();

// Parent side: fold the child's answer (or its failure) into the facts.
void apply_cuda_answer(const Result<std::string>& answer, CudaFacts& f);

}  // namespace dd::probe
