// Tests of the hang and lost-node decisions over recorded samples.
#include "launch/hang_watch.h"

#include <gtest/gtest.h>

namespace dd::launch {

namespace {
using namespace std::chrono_literals;
const HangClock::time_point t0 = HangClock::now();

Beat beat(int64_t seq, double silent, std::vector<int> idle, int alive = 2, bool done = false) {
  Beat b;
  b.seq = seq;
  b.silent_s = silent;
  b.idle = std::move(idle);
  b.alive = alive;
  b.done = done;
  return b;
}
}  // namespace

TEST(CpuWindow, UsageOverTheWindowOnlyOnceTheSamplesSpanIt) {
  CpuWindow w;
  w.sample(t0, 10.0);
  w.sample(t0 + 1s, 10.5);
  EXPECT_LT(w.used_over(2.0, t0 + 1s), 0) << "samples span 1 s of a 2 s window";
  w.sample(t0 + 2s, 10.5);
  w.sample(t0 + 3s, 10.5);
  EXPECT_DOUBLE_EQ(w.used_over(2.0, t0 + 3s), 0.0) << "no CPU between t0+1 and t0+3";
  EXPECT_DOUBLE_EQ(w.used_over(3.0, t0 + 3s), 0.5);
}

TEST(BeatBoard, HungWhenEveryLiveNodeIsSilent) {
  BeatBoard b(2, t0);
  std::string why;
  b.update(0, beat(1, 12, {}), t0 + 12s);
  EXPECT_FALSE(b.hung(10, &why)) << "node 1 has not reported yet";
  b.update(1, beat(1, 4, {3}), t0 + 12s);
  EXPECT_FALSE(b.hung(10, &why)) << "node 1 printed 4 s ago";
  b.update(1, beat(2, 11, {3}), t0 + 13s);
  ASSERT_TRUE(b.hung(10, &why));
  EXPECT_NE(why.find("rank 3"), std::string::npos) << why;
  EXPECT_NE(why.find("11.0 s"), std::string::npos) << why;
  b.update(1, beat(3, 11, {}), t0 + 14s);
  ASSERT_TRUE(b.hung(10, &why)) << "every rank spins inside NCCL (a desync): still a hang";
  EXPECT_EQ(why.find("no CPU"), std::string::npos) << why;
  b.update(1, beat(4, 9.5, {}), t0 + 15s);
  EXPECT_FALSE(b.hung(10, &why)) << "node 1 printed 9.5 s ago";
}

TEST(BeatBoard, RanksThatSpinBeforeTheirFirstLineAreStartingUp) {
  BeatBoard b(1, t0);
  Beat starting = beat(1, 12, {});
  starting.all_spoke = false;
  b.update(0, starting, t0 + 12s);
  std::string why;
  EXPECT_FALSE(b.hung(10, &why)) << "importing torch on a loaded machine: busy and silent, not hung";
  starting.idle = {3};
  starting.seq = 2;
  b.update(0, starting, t0 + 13s);
  EXPECT_TRUE(b.hung(10, &why)) << "an idle rank before any output (late to init) is a hang";
}

TEST(BeatBoard, FinishedNodesNeitherHangNorGetLost) {
  BeatBoard b(2, t0);
  b.update(0, beat(1, 30, {0}), t0 + 1s);
  b.update(1, beat(1, 30, {}, 0, true), t0 + 1s);
  std::string why;
  EXPECT_TRUE(b.hung(10, &why)) << "node 1 is done; node 0's idle rank decides";
  double silent = 0;
  EXPECT_EQ(b.lost_node(5, t0 + 20s, &silent), 0) << "node 0 sent one beat 19 s ago";
  b.update(0, beat(2, 30, {0}), t0 + 20s);
  EXPECT_EQ(b.lost_node(5, t0 + 21s, &silent), -1) << "node 1 is done: its silence is fine";
}

TEST(BeatBoard, ANodeWhoseHeartbeatStopsIsLost) {
  BeatBoard b(3, t0);
  for (int n = 0; n < 3; ++n) b.update(n, beat(1, 0, {}), t0 + 1s);
  b.update(0, beat(2, 0, {}), t0 + 7s);
  b.update(1, beat(2, 0, {}), t0 + 7s);
  b.update(2, beat(1, 0, {}), t0 + 7s);  // same seq: its launcher stopped sending
  double silent = 0;
  EXPECT_EQ(b.lost_node(5, t0 + 7s, &silent), 2);
  EXPECT_NEAR(silent, 6.0, 0.01);
}

}  // namespace dd::launch
