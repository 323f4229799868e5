// System probe: /dev/shm size, memlock and open-file limits, orphaned SysV shared memory, kernel modules.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "probe/facts.h"
#include "probe/fs.h"

namespace dd::probe {

// Segments of /proc/sysvipc/shm with nattch == 0.
std::vector<ShmSegment> parse_sysvipc_shm(const std::string& text);

// Names from /proc/modules that matter for GPUs and RDMA (nvidia*, nv_peer_mem, gdrdrv, ib_*, mlx*, rdma_*).
std::vector<std::string> parse_proc_modules(const std::string& text);

// Bytes an unprivileged writer can still put on the filesystem holding path (statvfs f_bavail), -1 unknown.
int64_t free_bytes_at(const std::string& path);
// True when the filesystem holding path has an inode table and no free inode left (statvfs f_ffree == 0):
// a new file fails with ENOSPC though bytes are free.
bool no_free_inodes_at(const std::string& path);

// statvfs(/dev/shm) and getrlimit; files through fs. Limits: bytes / count, -1 unlimited.
SystemFacts probe_system(const Fs& fs, std::vector<std::string>* errors);

}  // namespace dd::probe
