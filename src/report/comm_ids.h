// The ids of the comm area's findings (the collective pass, bench, tune), named once: comm/ emits them and
// documents them (comm/finding_docs.cc), and lower layers read them: the cluster rules compare them in the
// cross-node results (rules/cluster_collectives.cc), NCCL's error table names them (nccl/error_causes.cc).
// They sit in report/, below every folder that uses them; an id never changes meaning once released.
#pragma once

namespace dd::report::comm_id {

inline constexpr char kBwLink[] = "comm.bw.link";
inline constexpr char kBwLow[] = "comm.bw.low";
inline constexpr char kBwSlowPair[] = "comm.bw.slow_pair";
inline constexpr char kCollectivesNotRun[] = "comm.collectives.not_run";
inline constexpr char kCollectivesOk[] = "comm.collectives.ok";
inline constexpr char kCudaUnavailable[] = "comm.cuda.unavailable";
inline constexpr char kDataWrong[] = "comm.data.wrong";
inline constexpr char kError[] = "comm.error";
inline constexpr char kGpuDuplicate[] = "comm.gpu.duplicate";
inline constexpr char kGpuNone[] = "comm.gpu.none";
inline constexpr char kGpuTooFew[] = "comm.gpu.too_few";
inline constexpr char kInitTimeout[] = "comm.init.timeout";
inline constexpr char kNcclMissing[] = "comm.nccl.missing";
inline constexpr char kNetConnect[] = "comm.net.connect";
inline constexpr char kNetNoInterface[] = "comm.net.no_interface";
inline constexpr char kOpTimeout[] = "comm.op.timeout";
inline constexpr char kPeerGone[] = "comm.peer.gone";
inline constexpr char kTransportDefault[] = "comm.transport.default";
inline constexpr char kTransportNet[] = "comm.transport.net";
inline constexpr char kTransportNetFailed[] = "comm.transport.net_failed";
inline constexpr char kTuneBetter[] = "comm.tune.better";
inline constexpr char kTuneDefaultBest[] = "comm.tune.default_best";
inline constexpr char kWorkerDied[] = "comm.worker.died";
inline constexpr char kWorkerStopped[] = "comm.worker.stopped";
inline constexpr char kWorkerStuck[] = "comm.worker.stuck";

}  // namespace dd::report::comm_id
