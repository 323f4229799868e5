// The comm.* finding docs: what each means, why it matters, what to do.
#include "comm/finding_docs.h"

#include "report/comm_ids.h"

namespace dd::comm {

namespace {

// The pass's outcome, and what a rank's process or a deadline did to it.
std::vector<report::FindingDoc> outcome_docs() {
  return {
      {report::comm_id::kCollectivesOk, "Collectives ran and every output element was right",
       "Each collective ran on every rank with inputs whose exact result is known, outputs poisoned before "
       "the run "
       "and every element compared on the device (NCCL) or host (Gloo). Nothing was wrong. By default one "
       "run of each size and mode is compared (made before the warm-up); warm-up and timed runs are not. "
       "`bench --check all` compares every timed run too. In-place alltoall and sendrecv are timed but not "
       "compared, as in nccl-tests."},
      {report::comm_id::kCollectivesNotRun,
       "The collective pass did not run: this build lacks the engine it needs",
       "With no GPU that NCCL can use, the pass runs on Gloo (TCP on the CPU). A portable build made without "
       "a Gloo source tree (`make portable` without DD_GLOO_SRC: Debian ships Gloo only as a shared "
       "library) has no Gloo engine, so the pass is reported as not run, a warning, instead of as a failure "
       "of the node. Nothing about the node is known from it.",
       "Run the check on a node where NCCL loads and sees the GPUs, or use a build with Gloo: `make` on "
       "Debian with libgloo-dev, or `make portable DD_GLOO_SRC=<Gloo source tree>`."},
      {report::comm_id::kDataWrong, "A collective returned wrong data",
       "Some output elements differed from the exact expected value, counted per rank. A wrong result is a "
       "failure "
       "whatever the speed: suspect GPU memory (ECC, Xid errors), a faulty link, or a NCCL bug. Run bench on "
       "subsets "
       "of GPUs to isolate the pair, and try another NCCL version with --nccl-lib."},
      {report::comm_id::kWorkerDied, "A rank's process died",
       "A worker process exited or was killed by a signal (named with its status) while the others ran; "
       "distdoctor "
       "noticed it at once and stopped the rest, as a training job's launcher should. SIGKILL often means "
       "the OOM "
       "killer or the scheduler; SIGSEGV/SIGABRT a crash (Gloo aborts when a peer cannot be reached)."},
      {report::comm_id::kWorkerStopped, "A rank's process was stopped (state T) and held the others",
       "While the ranks waited, the supervisor read each worker's state in /proc: this one was stopped "
       "(state T: SIGSTOP, SIGTSTP from Ctrl-Z, a job controller's suspend; state t: held by a debugger) "
       "for over 1.5 s. A stopped rank cannot answer, so every other rank waits for it inside the "
       "collective until a deadline fires, and their timeouts then blame the wrong ranks. distdoctor names "
       "the stopped rank as the cause, the waiting ranks and the op they waited in as its witnesses, and "
       "stops the run. Find what stopped the process; resume it with kill -CONT."},
      {report::comm_id::kWorkerStuck,
       "A rank's process was stuck in the kernel (state D) or a zombie (state Z)",
       "The worker's /proc state stayed D (uninterruptible sleep) for over 8 s while no rank made "
       "progress, or Z (its main thread exited while other threads lived on). Such a rank holds every "
       "other rank in the collective. D means it waits for the kernel: a hung GPU or driver call (look for "
       "Xid errors in dmesg), a dead network file system, heavy swapping; the evidence gives its wait "
       "channel."},
      {report::comm_id::kPeerGone, "Another node's ranks are gone; this node's ranks were stopped",
       "In a cross-node pass the cluster's leader names a node whose heartbeat stood still, or whose ranks "
       "failed and left, as gone and tells the other nodes, whose ranks would otherwise wait for it until "
       "their deadlines. Their runs stop at once; this finding is a consequence: the cause is what the "
       "leader named on that node (cluster.collectives.node_silent, or that node's own failure)."},
      {report::comm_id::kInitTimeout, "The communicator was not created before the deadline",
       "Communicators are created non-blocking and polled; at the deadline they are aborted and the ranks "
       "that never "
       "joined or did not finish are named. Usual causes: a rank that never started, a firewall or a wrong "
       "interface "
       "between nodes, or a rank stuck in its own code."},
      {report::comm_id::kOpTimeout, "A collective did not complete before the deadline",
       "A collective was enqueued but did not finish in time; the communicator was aborted. The rank that "
       "stalled "
       "(alive but silent) is named. Look at what that rank was doing (py-spy dump, its log)."},
  };
}

// Set-up (GPUs, CUDA, NCCL, the network), bandwidth, transports and tuning.
std::vector<report::FindingDoc> setup_and_speed_docs() {
  return {
      {report::comm_id::kGpuDuplicate, "Two ranks on one GPU",
       "NCCL refuses a communicator where two ranks use the same GPU (\"Duplicate GPU detected\"). Each rank "
       "must "
       "select its own device, usually from LOCAL_RANK."},
      {report::comm_id::kGpuTooFew, "More ranks than visible GPUs",
       "The ranks of this node need more GPUs than CUDA_VISIBLE_DEVICES (or the node) provides. Widen "
       "CUDA_VISIBLE_DEVICES or start fewer ranks per node."},
      {report::comm_id::kGpuNone, "No GPU visible for the NCCL test",
       "Run on a GPU node, or use the Gloo engine."},
      {report::comm_id::kCudaUnavailable, "CUDA is not usable",
       "The CUDA runtime could not see a usable GPU (driver missing or too old). See the gpu findings of "
       "check."},
      {report::comm_id::kNcclMissing, "NCCL could not be loaded",
       "libnccl.so.2 was not found or lacks symbols. Install NCCL or point --nccl-lib at the one your "
       "framework uses."},
      {report::comm_id::kNetNoInterface, "NCCL found no network interface",
       "NCCL's bootstrap found no interface to use, usually because NCCL_SOCKET_IFNAME names one that does "
       "not exist "
       "or is down. Set it to an interface present and up on every node, or unset it."},
      {report::comm_id::kNetConnect, "Ranks could not connect to each other",
       "Sockets between ranks failed (refused, reset, timed out). Check firewalls, the interface chosen "
       "(NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME) and routes between nodes."},
      {report::comm_id::kError, "The collective test failed",
       "See the evidence: the library's own message is quoted."},
      {report::comm_id::kBwLink, "Bus bandwidth as a fraction of the link",
       "busbw at the largest size tested, next to the per-direction limit of the GPUs' link (NVLink count x "
       "speed, "
       "or PCIe generation x width, read from NVML). NCCL usually reaches 75-85% of NVLink."},
      {report::comm_id::kBwLow, "Bus bandwidth far below the link",
       "busbw at the largest size tested is under 40% of what the link allows (under 20% when that size "
       "is 64-255 MiB, where even a healthy send/recv has not reached the link's rate: 34% on 4x H100 at "
       "64 MiB): P2P may be disabled (NCCL_P2P_DISABLE, IOMMU/ACS; 5% on 4x H100), traffic may take SHM "
       "or the network instead of NVLink, or a link is degraded. Check the transport finding."},
      {report::comm_id::kBwSlowPair, "A pair of GPUs is much slower than the others",
       "In the per-pair send/recv matrix this pair reached under half the median pair: a degraded NVLink or "
       "a "
       "narrower PCIe path between these two GPUs."},
      {report::comm_id::kTransportDefault, "Which transport NCCL chose",
       "Read from NCCL's own INFO log: P2P (NVLink or PCIe peer access), SHM (through host memory), or NET."},
      {report::comm_id::kTransportNet, "NCCL's network path works",
       "With NCCL_P2P_DISABLE=1 and NCCL_SHM_DISABLE=1, NCCL had to use its network transport (NET/IB or "
       "NET/Socket); the NIC and the busbw it reached are given. This is the path traffic takes between "
       "nodes."},
      {report::comm_id::kTransportNetFailed, "NCCL's network path does not work",
       "With P2P and SHM off NCCL could not run: multi-node jobs will fail the same way. Fix the interface, "
       "IB HCA "
       "selection (NCCL_IB_HCA) or firewall first."},
      {report::comm_id::kTuneBetter, "An NCCL setting beats the default here",
       "bench --tune measured NCCL settings one by one (and the best two together) and this one gave more "
       "bus "
       "bandwidth, confirmed with the data check. The fix lists the exports."},
      {report::comm_id::kTuneDefaultBest, "NCCL's defaults are the best tried",
       "No tried setting beat the default by 1%."},
  };
}

}  // namespace

const std::vector<report::FindingDoc>& comm_finding_docs() {
  static const std::vector<report::FindingDoc> docs = [] {
    std::vector<report::FindingDoc> all = outcome_docs();
    for (auto& d : setup_and_speed_docs()) all.push_back(std::move(d));
    return all;
  }();
  return docs;
}

}  // namespace dd::comm
