// CUDA driver loader: cuInit + cuDeviceGetCount with the driver's own error names.
#include "dynlib/cuda_driver.h"

#include <string>

#include "dynlib/library.h"

namespace dd::dynlib {

Result<int> cuda_device_count(const PathOverride& cuda_lib) {
  auto lib = Library::open({"libcuda.so.1", "libcuda.so"}, cuda_lib);
  if (!lib) return lib.error();
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  using ErrFn = int (*)(int, const char**);
  auto init = lib->fn<InitFn>({"cuInit"});
  auto count = lib->fn<CountFn>({"cuDeviceGetCount"});
  auto name = lib->fn<ErrFn>({"cuGetErrorName"});
  if (!init || !count) return Error{lib->path() + " lacks cuInit/cuDeviceGetCount", 0};
  auto describe = [&](const char* call, int rc) {
    const char* s = nullptr;
    std::string n = (name && name(rc, &s) == 0 && s) ? s : "CUDA error";
    return Error{std::string(call) + " failed: " + n + " (" + std::to_string(rc) + ")", 0};
  };
  constexpr int kNoDevice = 100;  // CUDA_ERROR_NO_DEVICE: e.g. CUDA_VISIBLE_DEVICES hides every GPU
  if (int rc = init(0); rc != 0)
    return rc == kNoDevice ? Result<int>(0) : Result<int>(describe("cuInit", rc));
  int n = 0;
  if (int rc = count(&n); rc != 0) return describe("cuDeviceGetCount", rc);
  return n;
}

}  // namespace dd::dynlib
