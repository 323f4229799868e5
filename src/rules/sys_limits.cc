// Rule: system limits NCCL depends on: /dev/shm size and free space, memlock where RDMA devices exist, open
// files.
#include <fmt/format.h>

#include "common/units.h"
#include "rules/node_rules.h"
#include "rules/rule_util.h"
#include "rules/shm_need.h"

namespace dd::rules {

using report::Finding;
using report::Severity;

namespace {

constexpr int64_t kGiB = 1024LL * 1024 * 1024;
constexpr int64_t kMiB = 1024LL * 1024;

std::string limit_str(int64_t v) { return v == -1 ? "unlimited" : v == -2 ? "unknown" : human_bytes(v); }

// /dev/shm: what the job's NCCL will put there (shm_need.h) against what is free, and PyTorch's data-loader
// workers, which pass every batch through it. A fail only where NCCL will run out for sure; a small /dev/shm
// that NCCL does not use is a warning for the data loaders. When this check's own collectives passed, their
// result outranks the prediction.
void add_shm(const probe::NodeFacts& f, const CheckOptions& opt, std::vector<Finding>& out) {
  const auto& s = f.system;
  if (s.shm_total_bytes < 0) return;
  const int64_t free = s.shm_free_bytes >= 0 ? s.shm_free_bytes : s.shm_total_bytes;
  const ShmNeed need = predict_nccl_shm(f, opt);
  std::vector<std::string> ev = {
      fmt::format("/dev/shm size {}, free {}", human_bytes(s.shm_total_bytes), human_bytes(free))};
  if (!need.nccl_version.empty()) {
    ev.push_back(
        fmt::format("NCCL {} for {} rank(s) on this node needs {}{}:", need.nccl_version, need.ranks,
                    estimate_in_words(need.certain),
                    need.fallback > 0 ? fmt::format(" (up to {} more)", human_bytes(need.fallback)) : ""));
    for (const auto& p : need.parts) ev.push_back("  " + p);
  }
  const std::string resize =
      "docker run --shm-size=16g (or --ipc=host); Kubernetes: an emptyDir with medium: Memory at /dev/shm; "
      "bare metal: mount -o remount,size=16G /dev/shm";
  const std::string loaders =
      "PyTorch DataLoader workers (num_workers > 0) pass every batch through /dev/shm and die with \"bus "
      "error\" "
      "(\"DataLoader worker ... is killed by signal: Bus error\") when it runs out";
  if (need.certain > free) {
    Finding x{
        "sys.shm.small", Severity::fail,
        fmt::format("/dev/shm has {} free and NCCL {} will need about {} there: it fails with \"unhandled "
                    "system error\" (No space left on device)",
                    human_bytes(free), need.nccl_version, human_bytes(need.certain)),
        ev, resize};
    if (opt.collectives_passed) {
      x.severity = Severity::warn;
      x.evidence.push_back(
          "this check's NCCL collectives passed with this /dev/shm: a job with more ranks, "
          "nodes or communicators can still run out");
    }
    out.push_back(std::move(x));
  } else if (s.shm_total_bytes < kGiB || need.certain + need.fallback > free) {
    ev.push_back(loaders);
    out.push_back(
        {"sys.shm.small", Severity::warn,
         fmt::format("/dev/shm is only {}{}: {}", human_bytes(s.shm_total_bytes),
                     need.certain > 0 ? fmt::format(" (NCCL needs about {})", human_bytes(need.certain))
                                      : std::string(""),
                     need.certain + need.fallback > free
                         ? "NCCL may run out if its cuMem host memory falls back to files, and "
                           "data-loader workers need room too"
                         : "enough for NCCL here, but data-loader workers pass batches through it"),
         ev, resize});
  } else if (s.shm_free_bytes >= 0 && s.shm_free_bytes < kGiB / 2) {
    out.push_back({"sys.shm.full", Severity::warn,
                   fmt::format("/dev/shm has only {} free of {}", human_bytes(s.shm_free_bytes),
                               human_bytes(s.shm_total_bytes)),
                   ev, "Remove leftovers of crashed jobs: ls -la /dev/shm (nccl-*, torch_*), then rm them"});
  } else {
    out.push_back({"sys.shm.ok", Severity::ok,
                   fmt::format("/dev/shm {} ({} free)", human_bytes(s.shm_total_bytes), human_bytes(free)),
                   ev});
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
       {"sys.shm.small", "/dev/shm too small for NCCL or the data loaders",
        "What NCCL puts in /dev/shm depends on its version, its settings and the GPUs' connections (from "
        "NCCL's source, docs/shm.md): on one node with P2P (NVLink or PCIe) between the GPUs and cuMem on "
        "(the "
        "default since 2.19 with a CUDA 12+ driver) nothing; a proxy pool of about 34 MB per rank per "
        "communicator when the job spans nodes, with NCCL_CUMEM_ENABLE=0, NCCL_RUNTIME_CONNECT=0 or the "
        "*_USE_CUDA_MEMCPY options; the SHM transport's buffers (about 9.6 MB per connection) where P2P is "
        "off, "
        "in files unless NCCL's cuMem host memory is on (default from 2.24.3 with a 12.6+ driver). A fail "
        "means NCCL will run out for sure: it then fails with \"unhandled system error\" (or an internal "
        "error from its proxy thread) and NCCL_DEBUG=WARN shows \"Error while creating shared memory segment "
        "/dev/shm/nccl-... No space left on device\". Otherwise a /dev/shm under 1 GiB is a warning: PyTorch "
        "DataLoader workers pass batches through it and die with a bus error. Docker's default is 64 MiB. "
        "When "
        "this check's own collectives passed, a fail becomes a warning."},
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
