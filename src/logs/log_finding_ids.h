// The ids of `logs` findings that other files (and folders above, cli/run_records) test for: named here once,
// so a comparison cannot drift from the id a rule gives. An id only its own rule file names stays a literal
// there, next to its doc in the rule's row (log_rules.h).
#pragma once

namespace dd::logs::ids {

inline constexpr char kRankStoppedFirst[] = "logs.rank.stopped_first";
inline constexpr char kHangSamePlace[] = "logs.hang.same_place";
inline constexpr char kFrStraggler[] = "logs.fr.straggler";
inline constexpr char kTorchrunFailures[] = "logs.torchrun.failures";
// Emitted by late_init_rule.cc, a culprit of rank_rules.cc's row.
inline constexpr char kInitLateRank[] = "logs.init.late_rank";
// The consequences finding_order.cc ranks after a root cause.
inline constexpr char kWatchdogSummary[] = "logs.pytorch.watchdog_summary";
inline constexpr char kCollDesync[] = "logs.coll.desync";
inline constexpr char kInitIncomplete[] = "logs.init.incomplete";
inline constexpr char kInitPartial[] = "logs.init.partial";
inline constexpr char kNcclWarn[] = "logs.nccl.warn";
// The prefix of the hang rules' culprit ids (logs.hang.desync, .ahead, .late, .missing), which
// finding_fold.cc reads as one view of a hang.
inline constexpr char kHangPrefix[] = "logs.hang.";
inline constexpr char kFrPrefix[] = "logs.fr.";  // the Flight Recorder's view of it

}  // namespace dd::logs::ids
