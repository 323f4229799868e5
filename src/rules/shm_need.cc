// predict_nccl_shm (see shm_need.h). Sizes measured on NCCL's own structs per release (sizeof the proxy ops
// pool; the SHM transport's receive buffers: 4 KiB + LL 512 KiB + LL128 4.69 MiB + Simple 4 MiB).
#include "rules/shm_need.h"

#include <fmt/format.h>

#include <algorithm>

#include "rules/engine_choice.h"
#include "rules/rule_util.h"

namespace dd::rules {

namespace {

constexpr int64_t kShmConnBytes = 9637888;  // one SHM connection's receive side (NCCL 2.28)
constexpr int kShmConnsPerRank = 4;         // 2-6 in practice: rings and trees to the local peers

// The proxy ops pool, per rank and communicator, by NCCL release.
int64_t proxy_pool_bytes(int v) {
  if (v >= 22800) return 34210176;
  if (v >= 22700) return 33030000;
  if (v >= 22500) return 31850000;
  if (v >= 22300) return 10490000;
  if (v >= 22100) return 7340000;
  return 4190000;
}

std::string setting(const probe::NodeFacts& f, const char* name) {
  auto it = f.nccl.settings.find(name);
  return it == f.nccl.settings.end() ? "" : it->second.value;
}

// P2P between the GPUs the ranks use (the first ones of the recorded matrix); unknown counts as P2P: the
// P2P rule names a missing matrix on its own.
bool all_pairs_p2p(const probe::NodeFacts& f, int ranks) {
  const auto& m = f.gpu.p2p_read;
  const int n = std::min<int>(ranks, int(m.size()));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && (int(m[i].size()) <= j || m[i][j] != "OK")) return false;
  return true;
}

}  // namespace

ShmNeed predict_nccl_shm(const probe::NodeFacts& f, const CheckOptions& opt) {
  ShmNeed n;
  const NcclLibChoice lib = choose_nccl_lib(f, "");  // the framework's own first, then the loader's
  int v = 0;
  for (const auto& l : f.nccl.libs)
    if (l.error.empty() && (l.path == lib.path || (lib.path.empty() && v <= 0))) v = nccl_version_code(l);
  n.ranks = opt.nproc_per_node > 0 ? opt.nproc_per_node : visible_gpu_count(f);
  if (v <= 0 || n.ranks < 1) return n;
  n.nccl_version = nccl_version_string(v);
  const int driver = int(f.gpu.cuda_driver_version);
  const std::string cumem = setting(f, "NCCL_CUMEM_ENABLE"), host = setting(f, "NCCL_CUMEM_HOST_ENABLE");
  const bool cumem_on = v >= 21900 ? cumem != "0" && (driver <= 0 || driver >= 12000) : cumem == "1";
  const bool multi_node = opt.nnodes > 1;
  const bool copy_engine =
      setting(f, "NCCL_SHM_USE_CUDA_MEMCPY") == "1" || setting(f, "NCCL_P2P_USE_CUDA_MEMCPY") == "1";
  std::string pool_why =
      multi_node  ? "the job spans nodes (network connections)"
      : !cumem_on ? (cumem == "0" ? "NCCL_CUMEM_ENABLE=0" : "cuMem is off (NCCL or driver too old)")
      : v < 22200 ? "NCCL before 2.22 makes it at every init"
      : setting(f, "NCCL_RUNTIME_CONNECT") == "0" ? "NCCL_RUNTIME_CONNECT=0"
      : copy_engine                               ? "a *_USE_CUDA_MEMCPY option"
                                                  : "";
  if (!pool_why.empty()) {
    const int64_t b = proxy_pool_bytes(v) * n.ranks;
    n.certain += b;
    n.parts.push_back(fmt::format("proxy pool: {} ({} per rank per communicator; {})", human_bytes(b),
                                  human_bytes(proxy_pool_bytes(v)), pool_why));
  }
  const bool p2p_off = setting(f, "NCCL_P2P_DISABLE") == "1" || setting(f, "NCCL_P2P_LEVEL") == "LOC";
  if (n.ranks >= 2 && (p2p_off || !all_pairs_p2p(f, n.ranks)) && setting(f, "NCCL_SHM_DISABLE") != "1") {
    const bool host_mem = cumem_on && ((v >= 22403 && host != "0" && (driver <= 0 || driver >= 12060)) ||
                                       (v >= 22300 && host == "1"));
    const int64_t b = kShmConnBytes * kShmConnsPerRank * n.ranks;
    const std::string why = p2p_off ? "NCCL_P2P_DISABLE=1" : "no P2P between some of the GPUs";
    if (host_mem) {
      n.fallback += b;
      n.parts.push_back(fmt::format(
          "SHM transport ({}): in cuMem host memory, not /dev/shm; about {} there if NCCL's host allocation "
          "test fails (some containers) and it falls back to files",
          why, human_bytes(b)));
    } else {
      n.certain += b;
      n.parts.push_back(fmt::format("SHM transport ({}): about {} ({} per connection, a few per rank)", why,
                                    human_bytes(b), human_bytes(kShmConnBytes)));
    }
  }
  if (n.parts.empty())
    n.parts.push_back(fmt::format("NCCL {} with P2P between the {} GPUs and cuMem on: nothing in /dev/shm",
                                  n.nccl_version, n.ranks));
  return n;
}

}  // namespace dd::rules
