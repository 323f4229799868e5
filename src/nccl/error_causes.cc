// The table of collective error strings -> finding id and fix; first matching row wins.
#include "nccl/error_causes.h"

namespace dd::nccl {

namespace {

struct CauseRow {
  std::vector<const char*> needles;  // any of these in the message or a warning
  const char* id;
  const char* fix;
};

const std::vector<CauseRow>& cause_table() {
  static const std::vector<CauseRow> rows = {
      {{"Duplicate GPU detected"},
       "comm.gpu.duplicate",
       "Two ranks share one GPU. Give each rank its own device (torch.cuda.set_device(LOCAL_RANK), or one "
       "CUDA_VISIBLE_DEVICES entry per process) and start no more ranks per node than GPUs."},
      {{"GPU(s) are visible", "invalid device ordinal"},
       "comm.gpu.too_few",
       "More ranks than visible GPUs on this node: widen CUDA_VISIBLE_DEVICES or lower --nproc-per-node."},
      {{"no socket interface", "No socket interface", "NCCL_SOCKET_IFNAME", "no usable bootstrap interface"},
       "comm.net.no_interface",
       "NCCL found no network interface to use. Set NCCL_SOCKET_IFNAME to an interface that exists and is up "
       "on every node (see `ip -br addr`), or unset it."},
      {{"cannot load NCCL"},
       "comm.nccl.missing",
       "Install NCCL (libnccl2) or pass --nccl-lib with the libnccl.so.2 your framework uses."},
      {{"cudaGetDeviceCount", "CUDA driver", "no CUDA-capable device"},
       "comm.cuda.unavailable",
       "The CUDA driver or GPUs are not usable here; see the gpu findings of `check`."},
      {{"Connection refused", "Connection timed out", "connectFullMesh", "Socket"},
       "comm.net.connect",
       "Ranks could not connect to each other: check firewalls and the interface chosen."},
  };
  return rows;
}

constexpr const char* kDefaultFix =
    "Read the NCCL warnings in the evidence; rerun with NCCL_DEBUG=INFO for the full log.";

}  // namespace

ErrorCause classify_comm_error(const std::string& msg, const std::vector<std::string>& warnings) {
  std::string all = msg;
  for (const auto& w : warnings) all += "\n" + w;
  for (const auto& row : cause_table())
    for (const char* needle : row.needles)
      if (all.find(needle) != std::string::npos) return {row.id, row.fix};
  return {"comm.error", kDefaultFix};
}

ErrorCause error_cause(const std::string& id) {
  for (const auto& row : cause_table())
    if (id == row.id) return {row.id, row.fix};
  return {"comm.error", kDefaultFix};
}

}  // namespace dd::nccl
