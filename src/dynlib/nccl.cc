// NCCL loader helpers: ncclGetVersion through dlopen, the loader's choice, version code formatting.
#include "dynlib/nccl.h"

#include "dynlib/library.h"

namespace dd::dynlib {

Result<int> nccl_get_version(const std::string& path) {
  auto lib = Library::open({path});
  if (!lib) return lib.error();
  using Fn = int (*)(int*);
  auto fn = lib->fn<Fn>({"ncclGetVersion"});
  if (!fn) return Error{path + " has no ncclGetVersion symbol (not an NCCL library?)", 0};
  int v = 0;
  if (int rc = fn(&v); rc != 0) return Error{"ncclGetVersion returned " + std::to_string(rc), 0};
  return v;
}

Result<std::string> nccl_loader_choice() {
  auto lib = Library::open({"libnccl.so.2"});
  if (!lib) return lib.error();
  return lib->path();
}

std::string nccl_version_string(int code) {
  if (code <= 0) return "";
  int major, minor, patch;
  if (code >= 10000) {  // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9
    major = code / 10000;
    minor = (code % 10000) / 100;
    patch = code % 100;
  } else {  // X*1000 + Y*100 + Z before
    major = code / 1000;
    minor = (code % 1000) / 100;
    patch = code % 100;
  }
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace dd::dynlib
