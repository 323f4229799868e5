// The host memory a process here may use, and the kernel OOM killer's count, read without root: MemAvailable
// of /proc/meminfo bounded by this process's memory cgroup (v2 memory.max less memory.current, v1
// memory.limit_in_bytes less memory.usage_in_bytes), and the cgroup's oom_kill counter (v2 memory.events,
// v1 memory.oom_control). dmesg, which names the victim, needs root on most systems.
#pragma once
#include <cstdint>
#include <string>

#include "probe/fs.h"

namespace dd::probe {

struct HostMemory {
  int64_t meminfo_available = -1;  // bytes, -1 unknown
  int64_t cgroup_limit = -1;       // bytes, -1 no limit or unknown
  int64_t cgroup_usage = -1;       // bytes, -1 unknown
  // What is left to use: the smaller of MemAvailable and the cgroup's room; -1 unknown.
  int64_t available() const;
  // Where available() comes from: "MemAvailable" or "the memory cgroup's limit".
  std::string source() const;
};

HostMemory read_host_memory(const Fs& fs);
// The kernel's OOM kills in this process's memory cgroup so far; -1 when it cannot be read.
int64_t read_oom_kills(const Fs& fs);

// Parsers (tests): a /proc/meminfo field in bytes ("MemAvailable"), -1 absent.
int64_t meminfo_bytes(const std::string& meminfo, const std::string& field);
// The memory cgroup folder of /proc/self/cgroup's text: v1's "memory" line, else v2's "0::" line; "" none.
std::string memory_cgroup_dir(const std::string& proc_self_cgroup);
// "oom_kill N" of memory.events or memory.oom_control, -1 absent.
int64_t oom_kill_count(const std::string& events);

}  // namespace dd::probe
