// The pieces of the NCCL settings rule (nccl_env.cc): one function per kind of setting, each reading one
// NCCL_* value with NCCL's own grammar (nccl/env_grammar.h) and adding findings. Internal to src/rules/.
#pragma once
#include <string>
#include <vector>

#include "probe/facts.h"
#include "report/finding.h"

namespace dd::rules {

// What every check of one setting needs.
struct NcclEnvItem {
  const probe::NodeFacts* facts = nullptr;
  std::string name;       // "NCCL_ALGO"
  std::string value;      // as in effect
  std::string described;  // "NCCL_ALGO=\"x\" (from /etc/nccl.conf)"
  int version = -1;       // lowest loadable NCCL, 22809; -1 unknown
  std::vector<report::Finding>* out = nullptr;
};

// True when the setting's kind is known here (then it was checked).
bool check_nccl_tune_list(const NcclEnvItem& it);  // NCCL_ALGO, NCCL_PROTO
bool check_nccl_number(const NcclEnvItem& it);     // switches, sizes, counts
bool check_nccl_level(const NcclEnvItem& it);      // NCCL_P2P_LEVEL, NCCL_NET_GDR_LEVEL, NCCL_P2P_PXN_LEVEL
bool check_nccl_debug(const NcclEnvItem& it);      // NCCL_DEBUG, NCCL_DEBUG_SUBSYS
bool check_nccl_if_list(const NcclEnvItem& it);    // NCCL_IB_HCA, NCCL_OOB_NET_IFNAME syntax
bool check_nccl_net(const NcclEnvItem& it);        // NCCL_NET against the node's RDMA ports

}  // namespace dd::rules
