// launch_end_line and its reader: each way a rank ends round-trips (rank, pid, status or signal, stopped by
// launch, the time as log_time_key reads it); lines that only look alike are not read as one.
#include "logs/launch_end_line.h"

#include <gtest/gtest.h>

#include "logs/log_time.h"

namespace dd::logs {
namespace {

const Where kAt{"node0.rank1.log", 7};

ExitEvent read_back(const RankEnd& e) {
  const std::string line = launch_end_line(e);
  EXPECT_EQ(line.back(), '\n');
  auto r = read_launch_end_line(std::string_view(line).substr(0, line.size() - 1), kAt);
  EXPECT_TRUE(r.has_value()) << line;
  return r.value_or(ExitEvent{});
}

TEST(LaunchEndLine, EveryEndRoundTrips) {
  const int64_t when = 1795819876752;  // an epoch ms with a fraction: .752
  ExitEvent k = read_back({.rank = 1, .pid = 993, .signal = 9, .wall_ms = when});
  EXPECT_EQ(k.rank, 1);
  EXPECT_EQ(k.pid, 993);
  EXPECT_EQ(k.code, -9);
  EXPECT_FALSE(k.by_launcher);
  EXPECT_EQ(k.at.line, 7u);
  EXPECT_EQ(k.time % 1000000, 752000);  // the milliseconds survive into the log's time key
  ExitEvent x = read_back({.rank = 12, .pid = 5, .exit_code = 7, .wall_ms = when});
  EXPECT_EQ(x.code, 7);
  ExitEvent ok = read_back({.rank = 0, .pid = 5, .exit_code = 0, .wall_ms = when});
  EXPECT_EQ(ok.code, 0);
  ExitEvent s = read_back({.rank = 3, .pid = 6, .signal = 15, .stopped_by_launch = true, .wall_ms = when});
  EXPECT_TRUE(s.by_launcher);
  EXPECT_EQ(s.code, -15);
  ExitEvent s9 = read_back({.rank = 3, .pid = 6, .signal = 9, .stopped_by_launch = true, .wall_ms = when});
  EXPECT_TRUE(s9.by_launcher);  // SIGKILL after the grace period: still launch's doing
  EXPECT_EQ(s9.code, -9);
}

TEST(LaunchEndLine, TheLineReadsAsALogLineOfItsTime) {
  const std::string line = launch_end_line({.rank = 1, .pid = 2, .signal = 9, .wall_ms = 1795819876752});
  EXPECT_NE(line.find(" distdoctor launch: rank 1 (pid 2) was killed by signal 9 (SIGKILL)"),
            std::string::npos)
      << line;
  EXPECT_GE(log_time_key(line), 0) << line;
}

TEST(LaunchEndLine, LookAlikesAreNotOne) {
  for (const char* l : {"distdoctor launch: rank 1 (pid 2) exited with status 3",  // no time first
                        "2026-11-27 23:00:55.352 distdoctor launch: rank x (pid 2) exited with status 3",
                        "2026-11-27 23:00:55.352 distdoctor launch: rank 1 (pid 2) did something else",
                        "2026-11-27 23:00:55.352 rank 1 exited with status 3", ""})
    EXPECT_FALSE(read_launch_end_line(l, kAt).has_value()) << l;
}

}  // namespace
}  // namespace dd::logs
