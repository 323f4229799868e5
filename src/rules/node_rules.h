// Declarations of the single-node rules; each is defined in its own file in src/rules/.
#pragma once
#include "rules/rule.h"

namespace dd::rules {

NodeRule gpu_presence_rule();   // gpu_presence.cc: NVML/driver/GPU missing
NodeRule cuda_driver_rule();    // cuda_driver.cc: cuInit fails where GPUs exist
NodeRule gpu_health_rule();     // gpu_health.cc: ECC, retirement, remap, MIG
NodeRule gpu_busy_rule();       // gpu_busy.cc: processes/memory before the job
NodeRule cuda_visible_rule();   // cuda_visible.cc: CUDA_VISIBLE_DEVICES vs GPUs and --nproc-per-node
NodeRule p2p_transport_rule();  // p2p_transport.cc: P2P/SHM disabled, P2P matrix, NVLinks
NodeRule nccl_version_rule();   // nccl_version.cc: missing, several, old libnccl
NodeRule nccl_env_rule();       // nccl_env.cc: every NCCL_* setting read with NCCL's grammar
std::vector<FindingDoc> nccl_env_docs();       // nccl_env_docs.cc: its finding docs
NodeRule socket_ifname_rule();                 // socket_ifname.cc: NCCL's socket interface
std::vector<FindingDoc> socket_ifname_docs();  // socket_ifname_docs.cc: its finding docs
NodeRule gloo_ifname_rule();                   // gloo_ifname.cc: GLOO_SOCKET_IFNAME
NodeRule ib_hca_rule();                        // ib_hca.cc: NCCL_IB_HCA, RoCE GID, IB disabled
NodeRule rdma_userspace_rule();                // rdma_userspace.cc: /dev/infiniband, libibverbs, providers
NodeRule hostname_rule();                      // hostname.cc: hostname resolving to loopback
NodeRule sys_limits_rule();                    // sys_limits.cc: /dev/shm, memlock, nofile
NodeRule sysv_shm_rule();                      // sysv_shm.cc: orphaned SysV segments
NodeRule nccl_debug_file_rule();               // nccl_debug_file.cc: NCCL_DEBUG_FILE shared or with ~
NodeRule probe_errors_rule();                  // probe_errors.cc: what could not be read

}  // namespace dd::rules
