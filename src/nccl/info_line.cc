// The ids, long forms and compare texts of NCCL's init information lines (see info_line.h). The lines, as
// NCCL prints them (read by logs/info_reading.cc):
//   "NET/Socket : Using [0]eth0:10.10.10.1<0> [1]eth1:fd00::1%eth1<0>"   (net_socket.cc, after
//   ncclFindInterfaces) "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_bond_0:1/RoCE ; OOB eth0:10.0.0.1<0>"
//   (net_ib.cc) "Bootstrap : Using eth0:10.0.0.1<0>"                                   (bootstrap.cc) "Using
//   network IB" / "Using network Socket"                            (net.cc, the plugin chosen) "NCCL
//   version 2.28.9+cuda13.0"                                         (init.cc) "NET/IB : No device found."
//   and "Failed to open libibverbs.so[.1]" (net_ib.cc, ibvwrap.cc: no RDMA transport in this process)
#include "nccl/info_line.h"

namespace dd::nccl {

namespace {

const char* kCompareIfs =
    "Every node should use its fast data interface, the same kind on all nodes. If this is lo, docker0 or a "
    "management port, set NCCL_SOCKET_IFNAME to the right interface on every node.";

const char* kNoRdma =
    "Normal on machines without InfiniBand or RoCE NICs: NCCL uses TCP sockets. On RDMA machines it costs "
    "most "
    "of the inter-node bandwidth: install the verbs user space (libibverbs1, ibverbs-providers / rdma-core "
    "with "
    "the mlx5 provider), pass /dev/infiniband to containers (--device=/dev/infiniband or a device plugin), "
    "and "
    "check ibv_devinfo in the job's environment.";

const char* kCompareIb =
    "Every node should list the same HCAs and link layer (all IB or all RoCE). A node that logs NET/Socket "
    "instead has no usable HCA: check ibstat, NCCL_IB_HCA and NCCL_IB_DISABLE.";
const char* kCompareNetwork =
    "Every rank should log the same network. Socket where the nodes have InfiniBand or RoCE means NCCL found "
    "no usable HCA on this rank (see NET/IB lines, NCCL_IB_DISABLE).";
const char* kCompareVersion =
    "Every rank of a job should load the same NCCL version: compare this line across the ranks' logs (a "
    "framework wheel may bundle its own libnccl).";

}  // namespace

std::string info_line_compare(std::string_view id) {
  if (id == "nccl.line.net_socket" || id == "nccl.line.bootstrap") return kCompareIfs;
  if (id == "nccl.line.net_ib") return kCompareIb;
  if (id == "nccl.line.network") return kCompareNetwork;
  if (id == "nccl.line.version") return kCompareVersion;
  if (id == "nccl.line.ib_no_device" || id == "nccl.line.ibverbs_missing") return kNoRdma;
  return "";
}

const std::vector<report::FindingDoc>& info_line_docs() {
  static const std::vector<report::FindingDoc> docs = {
      {"nccl.line.net_socket", "NCCL's socket transport: the interfaces it uses",
       "NCCL INFO NET/Socket : Using [0]IF:ADDR<0> ... lists the interfaces NCCL's socket transport chose, "
       "in "
       "its order (NCCL_SOCKET_IFNAME, else the automatic order that skips docker and lo). " +
           std::string(kCompareIfs)},
      {"nccl.line.net_ib", "NCCL's IB transport: the HCAs and link layer it uses",
       "NCCL INFO NET/IB : Using [0]HCA:PORT/IB|RoCE ... ; OOB IF:ADDR lists the HCA ports NCCL uses for "
       "inter-node traffic and the interface of its out-of-band socket. Compare across nodes: the same HCAs "
       "and "
       "link layer everywhere; NCCL_IB_HCA selects them."},
      {"nccl.line.bootstrap", "NCCL's bootstrap interface",
       "NCCL INFO Bootstrap : Using IF:ADDR<0> is the interface ranks use to find each other at init. " +
           std::string(kCompareIfs)},
      {"nccl.line.network", "The network plugin NCCL chose",
       "NCCL INFO Using network IB|Socket|<plugin> names the network NCCL uses between nodes. All ranks "
       "should "
       "agree; Socket where IB exists costs most of the bandwidth."},
      {"nccl.line.version", "The NCCL version a process loaded",
       "NCCL INFO NCCL version X.Y.Z names the libnccl the process loaded. Ranks with different versions may "
       "hang or fail at init: make every node load the same one."},
      {"nccl.line.ib_no_device", "NCCL found no usable InfiniBand/RoCE device",
       "NCCL INFO NET/IB : No device found. means libibverbs listed no device this process can open: no "
       "RDMA NIC, no provider library for it, or no /dev/infiniband in the container. " +
           std::string(kNoRdma)},
      {"nccl.line.ibverbs_missing", "NCCL could not load libibverbs",
       "NCCL INFO Failed to open libibverbs.so[.1] means the verbs library is not installed or not on the "
       "loader path, so NCCL's IB transport is off. " +
           std::string(kNoRdma)},
  };
  return docs;
}

}  // namespace dd::nccl
