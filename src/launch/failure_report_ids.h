// The ids of launch findings that other files (and cli/run_records) test for: named here once, so a
// comparison cannot drift from the id the report gives.
#pragma once

namespace dd::launch::ids {

inline constexpr char kRankFailed[] = "launch.rank.failed";
inline constexpr char kJobStraggler[] = "launch.job.straggler";

}  // namespace dd::launch::ids
