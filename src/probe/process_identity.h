// What a running process is, for comparing ranks (rules/rank_identity.h): its environment and the NCCL, CUDA
// runtime and driver libraries it has mapped, read from /proc. A worker started through a wrapper that does
// not exec (sh -c 'python3 train.py') is followed to the descendant that loaded NCCL.
#pragma once
#include <sys/types.h>

#include <map>
#include <string>

namespace dd::probe {

struct ProcessIdentity {
  pid_t pid = -1;       // the process read: the worker, or its descendant that loaded NCCL
  bool readable = false;  // its environment could be read (same user, still there)
  std::map<std::string, std::string> env;
  // Libraries mapped, by name ("libnccl", "libcudart", "libcuda") -> real path.
  std::map<std::string, std::string> libraries;
  bool nccl_loaded() const { return libraries.count("libnccl") > 0; }
};

// Reads pid (and, while it has not loaded NCCL, its descendants, breadth first, up to 32 processes).
ProcessIdentity read_process_identity(pid_t pid, const std::string& proc_root = "/proc");

// NCCL's own version string inside a libnccl file ("2.28.9+cuda13.0", from the "NCCL version ..." text NCCL
// prints at init), "" when the file cannot be read or holds none. Remembered per path, size and mtime: a
// library of hundreds of MB is scanned once.
std::string nccl_file_version(const std::string& path);

// The environment block of /proc/PID/environ ("A=1\0B=2\0") as a map (exposed for tests).
std::map<std::string, std::string> parse_environ(const std::string& block);

// The libraries of interest in a /proc/PID/maps text: "libnccl" -> path, ... (exposed for tests).
std::map<std::string, std::string> parse_mapped_libraries(const std::string& maps);

}  // namespace dd::probe
