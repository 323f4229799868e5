// Loads libnccl.so.2 with dlopen and fills the function table; a missing library or symbol is an Error.
#include "comm/nccl_api_cuda.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

namespace dd::comm {

namespace {

// Where a framework install keeps its own NCCL, tried after the loader's search path.
std::vector<std::string> fallback_paths() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const char* root : {"/opt/torch/.venv/lib", "/usr/local/lib", "/usr/lib"}) {
    if (!std::filesystem::is_directory(root, ec)) continue;
    for (const auto& py : std::filesystem::directory_iterator(root, ec)) {
      auto p = py.path() / "site-packages/nvidia/nccl/lib/libnccl.so.2";
      if (py.path().filename().string().rfind("python3", 0) == 0 && std::filesystem::exists(p, ec))
        out.push_back(p.string());
      p = py.path() / "dist-packages/nvidia/nccl/lib/libnccl.so.2";
      if (py.path().filename().string().rfind("python3", 0) == 0 && std::filesystem::exists(p, ec))
        out.push_back(p.string());
    }
  }
  return out;
}

Result<const NcclApi*> do_load(const std::string& path) {
  static NcclApi api;
  std::vector<std::string> tries;
  if (!path.empty()) {
    tries.push_back(path);
  } else {
    tries.push_back("libnccl.so.2");
    for (auto& p : fallback_paths()) tries.push_back(p);
  }
  std::string errors;
  for (const auto& p : tries) {
    api.handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (api.handle) break;
    const char* e = dlerror();
    errors += (errors.empty() ? "" : "; ") + std::string(e ? e : p);
  }
  if (!api.handle) return Error{"cannot load NCCL: " + errors};
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

}  // namespace dd::comm
