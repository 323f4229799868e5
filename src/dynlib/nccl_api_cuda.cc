// Loads the NCCL library the supervisor chose (rules::choose_nccl_lib, passed in the plan) with dlopen and
// fills the function table; a missing library or symbol is an Error.
#include "dynlib/nccl_api_cuda.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

namespace dd::dynlib {

namespace {

Result<const NcclApi*> do_load(const std::string& path) {
  static NcclApi api;
  const std::string file = path.empty() ? "libnccl.so.2" : path;
  api.handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api.handle) {
    const char* e = dlerror();
    return Error{"cannot load NCCL: " + std::string(e ? e : file), 0, ErrorKind::unavailable};
  }
  std::string missing;
#define DD_NCCL_SYM(name)                                                    \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(api.handle, #name)); \
  if (!api.name) missing += std::string(missing.empty() ? "" : ", ") + #name;
  DD_NCCL_SYM(ncclGetVersion)
  DD_NCCL_SYM(ncclGetUniqueId)
  DD_NCCL_SYM(ncclCommInitRankConfig)
  DD_NCCL_SYM(ncclCommGetAsyncError)
  DD_NCCL_SYM(ncclCommAbort)
  DD_NCCL_SYM(ncclCommDestroy)
  DD_NCCL_SYM(ncclGetErrorString)
  DD_NCCL_SYM(ncclGroupStart)
  DD_NCCL_SYM(ncclGroupEnd)
  DD_NCCL_SYM(ncclAllReduce)
  DD_NCCL_SYM(ncclAllGather)
  DD_NCCL_SYM(ncclReduceScatter)
  DD_NCCL_SYM(ncclBroadcast)
  DD_NCCL_SYM(ncclReduce)
  DD_NCCL_SYM(ncclSend)
  DD_NCCL_SYM(ncclRecv)
#undef DD_NCCL_SYM
  if (!missing.empty()) return Error{"NCCL library lacks " + missing + " (NCCL older than 2.14?)"};
  // Optional symbols (newer NCCL).
  api.ncclCommFinalize =
      reinterpret_cast<decltype(api.ncclCommFinalize)>(dlsym(api.handle, "ncclCommFinalize"));
  api.ncclGetLastError =
      reinterpret_cast<decltype(api.ncclGetLastError)>(dlsym(api.handle, "ncclGetLastError"));
  api.ncclCommRegister =
      reinterpret_cast<decltype(api.ncclCommRegister)>(dlsym(api.handle, "ncclCommRegister"));
  api.ncclCommDeregister =
      reinterpret_cast<decltype(api.ncclCommDeregister)>(dlsym(api.handle, "ncclCommDeregister"));
  api.ncclMemAlloc = reinterpret_cast<decltype(api.ncclMemAlloc)>(dlsym(api.handle, "ncclMemAlloc"));
  api.ncclMemFree = reinterpret_cast<decltype(api.ncclMemFree)>(dlsym(api.handle, "ncclMemFree"));
  api.ncclCommWindowRegister =
      reinterpret_cast<decltype(api.ncclCommWindowRegister)>(dlsym(api.handle, "ncclCommWindowRegister"));
  api.ncclCommWindowDeregister =
      reinterpret_cast<decltype(api.ncclCommWindowDeregister)>(dlsym(api.handle, "ncclCommWindowDeregister"));
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(api.ncclGetVersion), &info) && info.dli_fname) api.path = info.dli_fname;
  api.ncclGetVersion(&api.version);
  return &api;
}

}  // namespace

std::string NcclApi::version_string() const {
  int v = version, major = v >= 10000 ? v / 10000 : v / 1000,
      minor = v >= 10000 ? (v / 100) % 100 : (v / 100) % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}

Result<const NcclApi*> load_nccl(const std::string& path) {
  static std::mutex mu;
  static std::optional<Result<const NcclApi*>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  if (!loaded) loaded = do_load(path);
  return *loaded;
}

}  // namespace dd::dynlib
