// The ids of `logs` findings that other files (and folders above, cli/run_records) test for: named here once,
// so a comparison cannot drift from the id a rule gives.
#pragma once

namespace dd::logs::ids {

inline constexpr char kRankStoppedFirst[] = "logs.rank.stopped_first";
inline constexpr char kHangSamePlace[] = "logs.hang.same_place";
inline constexpr char kFrStraggler[] = "logs.fr.straggler";
inline constexpr char kTorchrunFailures[] = "logs.torchrun.failures";

}  // namespace dd::logs::ids
