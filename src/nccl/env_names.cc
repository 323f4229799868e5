// Tables of NCCL's environment names (see env_names.h). The list of names NCCL reads was taken from NCCL's
// sources (NCCL_PARAM / DEFINE_NCCL_PARAM / ncclGetEnv, releases 2.12 to 2.30); names only, no code.
#include "nccl/env_names.h"

#include <algorithm>
#include <array>
#include <vector>

namespace dd::nccl {
namespace {

// Without the "NCCL_" prefix, sorted.
// clang-format off
constexpr std::array kNcclReads = {
    "AGG_ALLOC_MODE", "AGG_CHANNEL_SIZE", "ALGO", "ALLGATHERV_ENABLE", "ALLOC_P2P_NET_LL_BUFFERS", "BUFFSIZE",
    "CGA_CLUSTER_SIZE", "CHECK_MODE", "CHECK_POINTERS", "CHUNK_SIZE", "COLLNET_ENABLE",
    "COLLNET_NODE_THRESHOLD", "COMM_BLOCKING", "COMM_ID", "COMM_SHRINK_SHARE_RESOURCES",
    "COMM_SPLIT_SHARE_RESOURCES", "CONF_FILE", "CONNECT_ROUND_MAX_PEERS", "CREATE_THREAD_CONTEXT", "CROSS_NIC",
    "CTA_POLICY", "CUDA_PATH", "CUMEM_ENABLE", "CUMEM_HOST_ENABLE", "DEBUG", "DEBUG_FILE", "DEBUG_SUBSYS",
    "DEBUG_TIMESTAMP_FORMAT", "DEBUG_TIMESTAMP_LEVELS", "DEV_API_JIT", "DISABLE_MEM_MANAGER", "DMABUF_ENABLE",
    "ELASTIC_BUFFER_REGISTER", "ENABLE_VERSION_CHECK", "ENV_PLUGIN", "GDAKI_USE_RELIABLE_DB", "GDRCOPY_ENABLE",
    "GDRCOPY_FIFO_ENABLE", "GDRCOPY_FLUSH_ENABLE", "GDRCOPY_SYNC_ENABLE", "GDR_FLUSH_DISABLE",
    "GIN_CONNECTION_RAIL", "GIN_COUNTER_POOL_SIZE", "GIN_ENABLE", "GIN_ERROR_QUERY_SEC",
    "GIN_GDAKI_MAX_DEST_RD_ATOMIC", "GIN_GDAKI_MAX_QP_RD_ATOMIC", "GIN_GDAKI_NIC_HANDLER",
    "GIN_GDAKI_QP_DEPTH", "GIN_IB_TC", "GIN_NCONNECTIONS", "GIN_NCONTEXTS", "GIN_PLUGIN",
    "GIN_PLUGIN_REF_COUNT", "GIN_PROXY_QUEUE_SIZE", "GIN_SIGNAL_POOL_SIZE", "GIN_TYPE", "GRAPH_DUMP_FILE",
    "GRAPH_DUMP_FILE_RANK", "GRAPH_FILE", "GRAPH_HELPER_DISABLE", "GRAPH_MIXING_SUPPORT", "GRAPH_REGISTER",
    "GRAPH_STREAM_ORDERING", "GROUP_CUDA_STREAM", "HOSTID", "IBVERBS_LIB", "IB_ADAPTIVE_ROUTING",
    "IB_ADDR_FAMILY", "IB_ADDR_RANGE", "IB_AR_THRESHOLD", "IB_DATA_DIRECT", "IB_DEVICE_PCI_ORDER",
    "IB_DISABLE", "IB_ECE_ENABLE", "IB_FIFO_TC", "IB_GID_INDEX", "IB_HCA", "IB_MERGE_NICS", "IB_MERGE_VFS",
    "IB_MQP_RETRY_ALL", "IB_MQP_RETRY_CNT", "IB_MQP_RETRY_SLEEP_MSEC", "IB_OOO_RQ", "IB_PCI_RELAXED_ORDERING",
    "IB_PKEY", "IB_PREPOST_RECEIVE_WORK_REQUESTS", "IB_QPS_PER_CONNECTION", "IB_QUERY_PORT_SPEED",
    "IB_RECEIVER_SIDE_MATCHING_SCHEME", "IB_RESILIENCY_PORT_FAILOVER",
    "IB_RESILIENCY_PORT_FAILOVER_MAX_ATTEMPTS", "IB_RESILIENCY_PORT_FAILOVER_PROBE_DELAY",
    "IB_RESILIENCY_PORT_RECOVERY", "IB_RESILIENCY_PORT_RECOVERY_ACK_TIMEOUT",
    "IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_INTERVAL", "IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_BATCH_SIZE",
    "IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_SEQUENCE_SIZE", "IB_RESILIENCY_PORT_RECOVERY_ALIVE_MSG_TIMEOUT",
    "IB_RESILIENCY_PORT_RECOVERY_ATTEMPTS_MAX", "IB_RESILIENCY_PORT_RECOVERY_START_DELAY", "IB_RETRY_CNT",
    "IB_RETURN_ASYNC_EVENTS", "IB_ROCE_VERSION_NUM", "IB_ROUTABLE_FLID_GID_INDEX", "IB_SL",
    "IB_SPLIT_DATA_ON_QPS", "IB_SUBNET_AWARE_ROUTING", "IB_SUBNET_PREFIX_LEN", "IB_TC", "IB_TIMEOUT",
    "IB_USE_INLINE", "IB_WARN_RAIL_LOCAL", "IGNORE_COLLNET_MISMATCH", "IGNORE_CPU_AFFINITY",
    "IGNORE_DISABLED_P2P", "IGNORE_NET_MISMATCH", "IPC_USE_ABSTRACT_SOCKET", "L1_SHARED_MEMORY_CARVEOUT",
    "LAUNCH_MODE", "LAUNCH_ORDER_IMPLICIT", "LAUNCH_RACE_FATAL", "LEGACY_CUDA_REGISTER", "LL128_BUFFSIZE",
    "LL128_C2C", "LL128_NTHREADS", "LL_BUFFSIZE", "LOCAL_REGISTER", "LSA_TEAM_SIZE", "MAX_CTAS",
    "MAX_NCHANNELS", "MAX_NRINGS", "MAX_P2P_NCHANNELS", "MEM_SYNC_DOMAIN", "MIN_CTAS", "MIN_NCHANNELS",
    "MIN_NRINGS", "MIN_P2P_NCHANNELS", "MLOPART_RDMA_ENABLE", "MNNVL_CLIQUE_ID", "MNNVL_CROSS_CLIQUE",
    "MNNVL_ENABLE", "MNNVL_RAIL_PER_HOST", "MNNVL_SCATTER_NETS_ENABLE", "MNNVL_UUID", "MULTI_RANK_GPU_ENABLE",
    "MULTI_SEGMENT_REGISTER", "NCHANNELS_PER_NET_PEER", "NET", "NETDEVS_POLICY", "NET_DISABLE_INTRA",
    "NET_FORCE_FLUSH", "NET_FORCE_MERGE", "NET_GDR_C2C", "NET_GDR_LEVEL", "NET_GDR_MLOPART", "NET_GDR_READ",
    "NET_MERGE_LEVEL", "NET_MERGE_POLICY", "NET_OPTIONAL_RECV_COMPLETION", "NET_OVERHEAD", "NET_PLUGIN",
    "NET_PLUGIN_REF_COUNT", "NET_SHARED_BUFFERS", "NET_SHARED_COMMS", "NO_CACHE", "NSOCKS_PERTHREAD",
    "NTHREADS", "NUM_RMA_CTX", "NVB_DISABLE", "NVB_PRECONNECT", "NVLINK_UTIL_CENTRIC_SCHED_ENABLE",
    "NVLSTREE_MAX_CHUNKSIZE", "NVLS_CHUNKSIZE", "NVLS_ENABLE", "NVLS_NCHANNELS", "NVTX_DISABLE",
    "OOB_NET_ENABLE", "OOB_NET_IFNAME", "P2P_DIRECT_DISABLE", "P2P_DISABLE", "P2P_EPOCH_ENABLE", "P2P_LEVEL",
    "P2P_LL_THRESHOLD", "P2P_MAX_PEERS", "P2P_NET_CHUNKSIZE", "P2P_NVL_CHUNKSIZE", "P2P_PCI_CHUNKSIZE",
    "P2P_PER_CHANNEL_NET_BW", "P2P_PXN_LEVEL", "P2P_READ_ENABLE", "P2P_SCHEDULE_GROUP_SIZE",
    "P2P_USE_CUDA_MEMCPY", "PARAM_DUMP_ALL", "PAT_ENABLE", "PROFILER_PLUGIN", "PROGRESS_APPENDOP_FREQ",
    "PROTO", "PROXY_APPEND_BATCH_SIZE", "PROXY_CPUSET", "PROXY_DUMP_SIGNAL", "PROXY_PROFILE", "PXN_C2C",
    "PXN_DISABLE", "RAS_ADDR", "RAS_ENABLE", "RAS_TIMEOUT_FACTOR", "REPORT_CONNECT_PROGRESS", "RMA_DISABLE",
    "RMA_PLUGIN", "RMA_PLUGIN_REF_COUNT", "RMA_PROXY_DUMP_SIGNAL", "RMA_PROXY_QUEUE_SIZE", "RUNTIME_CONNECT",
    "SET_CPU_STACK_SIZE", "SET_STACK_SIZE", "SET_THREAD_NAME", "SHADOW_MEMPOOL_MAX_SIZE", "SHM_DISABLE",
    "SHM_LOCALITY", "SHM_MEMCPY_MODE", "SHM_USE_CUDA_MEMCPY", "SINGLE_PROC_MEM_REG_ENABLE", "SOCKET_FAMILY",
    "SOCKET_IFNAME", "SOCKET_INLINE", "SOCKET_MAGIC", "SOCKET_MIN_TASKSIZE", "SOCKET_NTHREADS",
    "SOCKET_POLL_TIMEOUT_MSEC", "SOCKET_RCVBUF", "SOCKET_RETRY_CNT", "SOCKET_RETRY_SLEEP_MSEC",
    "SOCKET_SNDBUF", "SYM_CE_THRESHOLD", "SYM_CTAS", "SYM_GIN_KERNELS_ENABLE", "SYM_KERNEL",
    "SYM_NOWIN_ENABLE", "SYM_REUSE_SYSMEM_HANDLES", "SYM_RS_GIN_CHUNK_SIZE", "SYM_TMA_ENABLE",
    "THREAD_THRESHOLDS", "TOPO_DUMP_FILE", "TOPO_DUMP_FILE_RANK", "TOPO_FILE", "TOPO_SPLIT_MLOPART",
    "TUNER_PLUGIN", "UID_STAGGER_RATE", "UID_STAGGER_THRESHOLD", "UNPACK_DOUBLE_NCHANNELS",
    "WARN_ENABLE_DEBUG_INFO", "WIN_ENABLE", "WIN_STRIDE", "WORK_ARGS_BYTES", "WORK_FIFO_BYTES",
    "WORK_FIFO_DEPTH",
};
// clang-format on

struct RetiredName {
  std::string_view name;
  std::string_view note;
};
constexpr std::array kRetired = {
    RetiredName{"NCCL_IB_GDR_LEVEL", "renamed NCCL_NET_GDR_LEVEL in NCCL 2.4"},
    RetiredName{"NCCL_IB_CUDA_SUPPORT", "replaced by NCCL_NET_GDR_LEVEL in NCCL 2.4"},
    RetiredName{"NCCL_CHECKS_DISABLE", "deprecated in NCCL 2.2.12"},
    RetiredName{"NCCL_LL_THRESHOLD", "removed in NCCL 2.5 (use NCCL_PROTO)"},
    RetiredName{"NCCL_TREE_THRESHOLD", "removed in NCCL 2.5 (use NCCL_ALGO)"},
    RetiredName{"NCCL_SINGLE_RING_THRESHOLD", "removed in NCCL 2.5"},
};

// Exact names others use.
constexpr std::array<std::string_view, 16> kForeign = {
    "NCCL_VERSION",      "NCCL_HOME",          "NCCL_ROOT",
    "NCCL_ROOT_DIR",     "NCCL_INCLUDE_DIR",   "NCCL_LIB_DIR",
    "NCCL_LIBRARY",      "NCCL_LIBRARIES",     "NCCL_PATH",
    "NCCL_LIB",          "NCCL_BLOCKING_WAIT", "NCCL_ASYNC_ERROR_HANDLING",
    "NCCL_DESYNC_DEBUG", "NCCL_ENABLE_TIMING", "NCCL_TRACE_BUFFER_SIZE",
    "NCCL_PKG_VERSION"};
// Prefixes of plugin and tool families (SHARP, GCP FastRAK/TCPX, nccl-tests, AWS OFI, MSCCL, RCCL).
constexpr std::array<std::string_view, 8> kForeignPrefixes = {
    "NCCL_SHARP_", "NCCL_FASTRAK_", "NCCL_GPUDIRECTTCPX_", "NCCL_TESTS_",
    "NCCL_OFI_",   "NCCL_MSCCL",    "NCCL_TCPX_",          "NCCL_TUNER_CONFIG"};

// Optimal string alignment distance (edits, with adjacent swaps), capped at cap + 1.
size_t edit_distance(std::string_view a, std::string_view b, size_t cap) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > cap) return cap + 1;
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); i++) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); j++) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); i++)
    for (size_t j = 1; j <= b.size(); j++) {
      size_t sub = d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, sub});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

bool nccl_env_name_known(std::string_view name) {
  if (name.rfind("NCCL_", 0) != 0) return false;
  std::string_view rest = name.substr(5);
  return std::binary_search(kNcclReads.begin(), kNcclReads.end(), rest,
                            [](std::string_view x, std::string_view y) { return x < y; });
}

std::string nccl_env_name_retired(std::string_view name) {
  for (const auto& r : kRetired)
    if (r.name == name) return std::string(r.note);
  return "";
}

bool nccl_env_name_foreign(std::string_view name) {
  for (auto n : kForeign)
    if (n == name) return true;
  for (auto p : kForeignPrefixes)
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

std::string nccl_env_nearest_name(std::string_view name) {
  if (name.rfind("NCCL_", 0) != 0) return "";
  std::string_view rest = name.substr(5);
  // Short names need a closer match: one edit up to 8 characters, two beyond.
  const size_t cap = rest.size() <= 8 ? 1 : 2;
  std::string best;
  size_t best_d = cap + 1;
  for (std::string_view k : kNcclReads) {
    size_t d = edit_distance(rest, k, cap);
    if (d < best_d) {
      best_d = d;
      best = "NCCL_" + std::string(k);
    }
  }
  return best;
}

}  // namespace dd::nccl
