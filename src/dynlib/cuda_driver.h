// libcuda.so.1 (the CUDA driver API), loaded at run time: just enough to ask how many devices CUDA sees.
#pragma once
#include "common/result.h"
#include "dynlib/library.h"

namespace dd::dynlib {

// dlopen libcuda.so.1 (or the override, e.g. $DISTDOCTOR_CUDA_LIB as probe/tool_env.h read it), cuInit(0),
// cuDeviceGetCount. Honors CUDA_VISIBLE_DEVICES as the driver does. Call it only in a child process: a broken
// driver may hang or crash here.
Result<int> cuda_device_count(const PathOverride& cuda_lib);

}  // namespace dd::dynlib
