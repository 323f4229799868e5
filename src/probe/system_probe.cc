// System probe: syscalls (statvfs, getrlimit) plus parsers for /proc/sysvipc/shm and /proc/modules.
#include "probe/system_probe.h"

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <cstring>
#include <sstream>

namespace dd::probe {
namespace {

int64_t limit_value(rlim_t v) { return v == RLIM_INFINITY ? -1 : int64_t(v); }

}  // namespace

std::vector<ShmSegment> parse_sysvipc_shm(const std::string& text) {
  // key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime [rss swap]
  std::vector<ShmSegment> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string key;
    int64_t shmid, perms, size, cpid, lpid, nattch, uid;
    if (!(ls >> key)) continue;
    if (key == "key") continue;  // header
    if (!(ls >> shmid >> perms >> size >> cpid >> lpid >> nattch >> uid)) continue;
    if (nattch != 0) continue;
    ShmSegment s;
    s.key = key;
    s.shmid = shmid;
    s.bytes = size;
    s.cpid = cpid;
    s.nattch = nattch;
    s.uid = uid;
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> parse_proc_modules(const std::string& text) {
  static const char* kExact[] = {
      "nvidia",  "nvidia_uvm", "nvidia_peermem", "nvidia_drm", "nvidia_modeset", "nv_peer_mem",
      "gdrdrv",  "ib_core",    "ib_uverbs",      "mlx5_core",  "mlx5_ib",        "mlx4_core",
      "mlx4_ib", "rdma_cm",    "rdma_ucm",       "ib_ipoib",   "bonding",        "8021q"};
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::string name = line.substr(0, line.find(' '));
    for (const char* k : kExact)
      if (name == k) out.push_back(name);
  }
  return out;
}

int64_t free_bytes_at(const std::string& path) {
  struct statvfs v {};
  if (statvfs(path.c_str(), &v) != 0) return -1;
  return int64_t(v.f_bavail) * int64_t(v.f_frsize);
}

bool no_free_inodes_at(const std::string& path) {
  struct statvfs v {};
  return statvfs(path.c_str(), &v) == 0 && v.f_files > 0 && v.f_ffree == 0;  // f_files 0: no fixed table
}

SystemFacts probe_system(const Fs& fs, std::vector<std::string>* errors) {
  SystemFacts s;
  struct statvfs v {};
  if (statvfs("/dev/shm", &v) == 0) {
    s.shm_total_bytes = int64_t(v.f_blocks) * int64_t(v.f_frsize);
    s.shm_free_bytes = int64_t(v.f_bavail) * int64_t(v.f_frsize);
  } else if (errors) {
    errors->push_back(std::string("system: statvfs /dev/shm: ") + std::strerror(errno));
  }
  rlimit r{};
  if (getrlimit(RLIMIT_MEMLOCK, &r) == 0) {
    s.memlock_soft = limit_value(r.rlim_cur);
    s.memlock_hard = limit_value(r.rlim_max);
  }
  if (getrlimit(RLIMIT_NOFILE, &r) == 0) {
    s.nofile_soft = limit_value(r.rlim_cur);
    s.nofile_hard = limit_value(r.rlim_max);
  }
  if (auto shm = fs.read("/proc/sysvipc/shm"))
    s.sysv_orphans = parse_sysvipc_shm(*shm);
  else if (errors)
    errors->push_back("system: " + shm.error().message());
  if (auto mods = fs.read("/proc/modules")) {
    s.modules_readable = true;
    s.modules = parse_proc_modules(*mods);
  } else if (errors) {
    errors->push_back("system: " + mods.error().message());
  }
  return s;
}

}  // namespace dd::probe
