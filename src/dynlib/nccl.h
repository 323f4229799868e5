// libnccl.so.2, loaded at run time: the version a given library reports and which file the loader picks.
#pragma once
#include <string>

#include "common/result.h"

namespace dd::dynlib {

// dlopen `path` and call ncclGetVersion. Runs the library's constructors: call it in a child process.
Result<int> nccl_get_version(const std::string& path);

// dlopen("libnccl.so.2") as a job would and return the file the dynamic loader mapped.
Result<std::string> nccl_loader_choice();

// 22809 -> "2.28.9"; 2708 (pre-2.9 scheme: major*1000 + minor*100 + patch) -> "2.7.8".
std::string nccl_version_string(int code);

}  // namespace dd::dynlib
