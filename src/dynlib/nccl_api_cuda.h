// NcclApi: libnccl.so.2 loaded at run time (dlopen), never linked. nccl.h is used for its types only;
// each function pointer has the type of the declaration it stands for.
#pragma once
#include <nccl.h>

#include <string>

#include "common/result.h"

namespace dd::dynlib {

struct NcclApi {
  void* handle = nullptr;
  std::string path;  // the library that was loaded (dladdr of a symbol)
  int version = 0;   // ncclGetVersion: 22809 = 2.28.9

#define DD_NCCL_FN(name) decltype(&::name) name = nullptr;
  DD_NCCL_FN(ncclGetVersion)
  DD_NCCL_FN(ncclGetUniqueId)
  DD_NCCL_FN(ncclCommInitRankConfig)
  DD_NCCL_FN(ncclCommGetAsyncError)
  DD_NCCL_FN(ncclCommAbort)
  DD_NCCL_FN(ncclCommDestroy)
  DD_NCCL_FN(ncclCommFinalize)
  DD_NCCL_FN(ncclGetErrorString)
  DD_NCCL_FN(ncclGetLastError)
  DD_NCCL_FN(ncclGroupStart)
  DD_NCCL_FN(ncclGroupEnd)
  DD_NCCL_FN(ncclAllReduce)
  DD_NCCL_FN(ncclAllGather)
  DD_NCCL_FN(ncclReduceScatter)
  DD_NCCL_FN(ncclBroadcast)
  DD_NCCL_FN(ncclReduce)
  DD_NCCL_FN(ncclSend)
  DD_NCCL_FN(ncclRecv)
  DD_NCCL_FN(ncclCommRegister)
  DD_NCCL_FN(ncclCommDeregister)
#undef DD_NCCL_FN
  // Symmetric memory windows (NCCL 2.27+; nullptr when absent). Declared here, not with decltype, so an
  // older nccl.h still compiles; ncclWindow_t is a pointer, passed as void*.
  ncclResult_t (*ncclMemAlloc)(void** ptr, size_t size) = nullptr;
  ncclResult_t (*ncclMemFree)(void* ptr) = nullptr;
  ncclResult_t (*ncclCommWindowRegister)(ncclComm_t comm, void* buff, size_t size, void** win,
                                         int flags) = nullptr;
  ncclResult_t (*ncclCommWindowDeregister)(ncclComm_t comm, void* win) = nullptr;
  bool has_windows() const {
    return ncclMemAlloc && ncclMemFree && ncclCommWindowRegister && ncclCommWindowDeregister;
  }

  std::string version_string() const;
};

// Loads NCCL from `path` (empty: libnccl.so.2 through the loader's search). The path is chosen once by the
// supervisor from the node's facts (rules::choose_nccl_lib); workers never search for NCCL themselves.
// Loaded once per process; later calls return the same table.
Result<const NcclApi*> load_nccl(const std::string& path);

}  // namespace dd::dynlib
