// Host memory and the OOM killer's count, from /proc and the memory cgroup (see host_memory.h).
#include "probe/host_memory.h"

#include <algorithm>
#include <sstream>

namespace dd::probe {

namespace {

// A cgroup value in bytes; "max" (v2) and v1's page-rounded 2^63 mean no limit (-1).
int64_t limit_bytes(const std::string& text) {
  if (text.empty() || text == "max") return -1;
  try {
    const long double v = std::stold(text);
    return v >= 4.0e18L ? -1 : int64_t(v);
  } catch (...) {
    return -1;
  }
}

// The folder of this process's memory cgroup, and whether it is cgroup v1; {"", _} when not readable.
std::pair<std::string, bool> cgroup_folder(const Fs& fs) {
  auto self = fs.read("/proc/self/cgroup");
  if (!self) return {"", false};
  const std::string rel = memory_cgroup_dir(*self);
  if (rel.empty()) return {"", false};
  const bool v1 = fs.is_dir("/sys/fs/cgroup/memory");
  const std::string root = v1 ? "/sys/fs/cgroup/memory" : "/sys/fs/cgroup";
  const std::string dir = root + (rel == "/" ? "" : rel);
  // Inside a container the path may be the host's while the mount shows the container's own group.
  return {fs.is_dir(dir) ? dir : root, v1};
}

}  // namespace

int64_t meminfo_bytes(const std::string& meminfo, const std::string& field) {
  std::istringstream in(meminfo);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) != 0) continue;
    std::istringstream v(line.substr(field.size() + 1));
    int64_t kib = -1;
    if (v >> kib) return kib * 1024;
  }
  return -1;
}

std::string memory_cgroup_dir(const std::string& proc_self_cgroup) {
  std::istringstream in(proc_self_cgroup);
  std::string unified;
  for (std::string line; std::getline(in, line);) {
    const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    std::istringstream names(controllers);
    for (std::string n; std::getline(names, n, ',');)
      if (n == "memory") return path;
    if (line.rfind("0::", 0) == 0) unified = path;
  }
  return unified;
}

int64_t oom_kill_count(const std::string& events) {
  std::istringstream in(events);
  for (std::string key; in >> key;) {
    int64_t n = -1;
    if (!(in >> n)) return -1;
    if (key == "oom_kill") return n;
  }
  return -1;
}

int64_t HostMemory::available() const {
  int64_t room = -1;
  if (cgroup_limit >= 0 && cgroup_usage >= 0) room = std::max<int64_t>(cgroup_limit - cgroup_usage, 0);
  if (meminfo_available < 0) return room;
  return room < 0 ? meminfo_available : std::min(meminfo_available, room);
}

std::string HostMemory::source() const {
  const int64_t avail = available();
  return avail >= 0 && avail != meminfo_available ? "the memory cgroup's limit" : "MemAvailable";
}

HostMemory read_host_memory(const Fs& fs) {
  HostMemory m;
  if (auto info = fs.read("/proc/meminfo")) m.meminfo_available = meminfo_bytes(*info, "MemAvailable");
  const auto [dir, v1] = cgroup_folder(fs);
  if (dir.empty()) return m;
  if (auto lim = read_trimmed(fs, dir + (v1 ? "/memory.limit_in_bytes" : "/memory.max")))
    m.cgroup_limit = limit_bytes(*lim);
  if (auto use = read_trimmed(fs, dir + (v1 ? "/memory.usage_in_bytes" : "/memory.current")))
    m.cgroup_usage = limit_bytes(*use);
  return m;
}

int64_t read_oom_kills(const Fs& fs) {
  const auto [dir, v1] = cgroup_folder(fs);
  if (dir.empty()) return -1;
  auto text = fs.read(dir + (v1 ? "/memory.oom_control" : "/memory.events"));
  return text ? oom_kill_count(*text) : -1;
}

}  // namespace dd::probe
