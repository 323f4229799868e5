// Rule: system limits NCCL depends on: /dev/shm size and free space, memlock where RDMA devices exist, open
// files.
#include <fmt/format.h>

#include "rules/node_rules.h"
#include "rules/rule_util.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

constexpr int64_t kGiB = 1024LL * 1024 * 1024;
constexpr int64_t kMiB = 1024LL * 1024;

std::string limit_str(int64_t v) { return v == -1 ? "unlimited" : v == -2 ? "unknown" : human_bytes(v); }

// /dev/shm: NCCL's SHM transport and proxy buffers live there (Docker's default is 64 MB).
void add_shm(const probe::NodeFacts& f, const CheckOptions& opt, std::vector<Finding>& out) {
  const auto& s = f.system;
  size_t ngpu = f.gpu.gpus.size();
  if (s.shm_total_bytes >= 0) {
    std::vector<std::string> ev = {fmt::format("/dev/shm size {}", human_bytes(s.shm_total_bytes)),
                                   fmt::format("/dev/shm free {}", human_bytes(s.shm_free_bytes))};
    bool multi = ngpu >= 2 || opt.nproc_per_node >= 2;
    if (s.shm_total_bytes < kGiB) {
      out.push_back(
          {"sys.shm.small", multi && s.shm_total_bytes <= 256 * kMiB ? Severity::fail : Severity::warn,
           fmt::format("/dev/shm is only {}{}: NCCL fails with \"unhandled system error\" (No space left on "
                       "device) when it runs out",
                       human_bytes(s.shm_total_bytes),
                       s.shm_total_bytes <= 64 * kMiB ? " (Docker's default)" : ""),
           ev,
           "docker run --shm-size=16g (or --ipc=host); Kubernetes: mount an emptyDir with medium: Memory "
           "at /dev/shm; bare metal: mount -o remount,size=16G /dev/shm"});
    } else if (s.shm_free_bytes >= 0 && s.shm_free_bytes < kGiB / 2) {
      out.push_back({"sys.shm.full", Severity::warn,
                     fmt::format("/dev/shm has only {} free of {}", human_bytes(s.shm_free_bytes),
                                 human_bytes(s.shm_total_bytes)),
                     ev,
                     "Remove leftovers of crashed jobs: ls -la /dev/shm (nccl-*, torch_*), then rm them"});
    } else {
      out.push_back({"sys.shm.ok", Severity::ok,
                     fmt::format("/dev/shm {} ({} free)", human_bytes(s.shm_total_bytes),
                                 human_bytes(s.shm_free_bytes)),
                     ev});
    }
  }
}

// memlock: RDMA registers (pins) memory; a limit other than unlimited breaks or slows IB/RoCE.
void add_memlock(const probe::NodeFacts& f, std::vector<Finding>& out) {
  const auto& s = f.system;
  bool rdma = !f.ib.devices.empty();
  if (rdma && s.memlock_soft != -2) {
    std::vector<std::string> ev = {
        fmt::format("memlock soft {}, hard {}", limit_str(s.memlock_soft), limit_str(s.memlock_hard))};
    if (s.memlock_soft != -1) {
      out.push_back(
          {"sys.memlock.limited", Severity::warn,
           fmt::format("memlock limit is {} with RDMA devices present: NCCL's IB transport cannot pin "
                       "enough memory (ibv_reg_mr fails)",
                       limit_str(s.memlock_soft)),
           ev,
           "ulimit -l unlimited (/etc/security/limits.conf: * - memlock unlimited; Docker: --ulimit "
           "memlock=-1:-1; systemd: LimitMEMLOCK=infinity)"});
    } else {
      out.push_back({"sys.memlock.ok", Severity::ok, "memlock unlimited (RDMA can pin memory)", ev});
    }
  }
}

void add_nofile(const probe::NodeFacts& f, std::vector<Finding>& out) {
  const auto& s = f.system;
  if (s.nofile_soft > 0 && s.nofile_soft < 4096) {
    out.push_back(
        {"sys.nofile.low",
         Severity::info,
         fmt::format("open-files limit is {} (hard {})", s.nofile_soft,
                     s.nofile_hard == -1 ? std::string("unlimited") : std::to_string(s.nofile_hard)),
         {fmt::format("nofile soft {}", s.nofile_soft)},
         "ulimit -n 1048576 (NCCL sockets, DataLoader workers and shared-memory files each use one)"});
  }
}

std::vector<Finding> check_limits(const probe::NodeFacts& f, const CheckOptions& opt) {
  std::vector<Finding> out;
  add_shm(f, opt, out);
  add_memlock(f, out);
  add_nofile(f, out);
  return out;
}

}  // namespace

NodeRule sys_limits_rule() {
  return {
      "sys.limits",
      check_limits,
      {{"sys.shm.ok", "/dev/shm large enough", "/dev/shm is at least 1 GiB and has room."},
       {"sys.shm.small", "/dev/shm smaller than 1 GiB",
        "NCCL allocates its shared-memory transport and proxy buffers in /dev/shm. Docker gives containers "
        "64 MB "
        "by default, which runs out as soon as several GPUs talk: NCCL then fails with \"unhandled system "
        "error\" and, with NCCL_DEBUG=WARN, \"Error while creating shared memory segment ... No space left "
        "on "
        "device\". PyTorch DataLoader workers use /dev/shm too (\"bus error\")."},
       {"sys.shm.full", "/dev/shm nearly full",
        "/dev/shm is big enough but almost full, usually with files left by crashed jobs."},
       {"sys.memlock.limited", "memlock limit with RDMA devices",
        "InfiniBand/RoCE pin memory for DMA. With a memlock limit (64 KiB by default) registration fails or "
        "NCCL "
        "falls back to slower paths. Set it to unlimited."},
       {"sys.memlock.ok", "memlock unlimited", "RDMA can register memory."},
       {"sys.nofile.low", "Low open-files limit",
        "Each NCCL socket, shared-memory segment and DataLoader worker pipe uses a file descriptor; large "
        "jobs "
        "hit \"Too many open files\" at 1024."}}};
}

}  // namespace dd::rules
