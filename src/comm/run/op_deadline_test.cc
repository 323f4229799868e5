// Deadlines from a measured warm-up: they scale with the measured speed and the op's size, never drop
// below the floor, and count --check all's extra runs.
#include "comm/run/op_deadline.h"

#include <gtest/gtest.h>

namespace dd::comm {
namespace {

OpRequest big(Coll c, uint64_t bytes) {
  OpRequest r;
  r.coll = c;
  r.bytes = bytes;
  r.warmup = 5;
  r.iters = 20;
  r.check = true;
  return r;
}

TEST(OpDeadline, SlowerLinkGetsProportionallyMoreTime) {
  const OpRequest op = big(Coll::all_reduce, 1ull << 30);
  const auto fast = measured_deadline(op, 2, 0.001);  // 256 KiB all_reduce in 1 ms: ~262 MB/s bus
  const auto slow = measured_deadline(op, 2, 0.010);  // ten times slower
  // 1 GiB at 262 MB/s is ~4.1 s per run, 26 runs, three times over, plus 2 s.
  EXPECT_NEAR(fast.count() / 1000.0, 4.096 * 26 * 3 + 2, 1.0);
  EXPECT_NEAR(double(slow.count() - 2000) / double(fast.count() - 2000), 10.0, 0.01);
}

TEST(OpDeadline, SmallOpsKeepTheFloor) {
  OpRequest op = big(Coll::broadcast, 4096);
  EXPECT_EQ(measured_deadline(op, 8, 0.0001).count(), 5000);
  EXPECT_EQ(measured_deadline(op, 8, 0.0).count(), 5000);  // a zero probe time is not a division by zero
}

TEST(OpDeadline, CheckEveryRunCountsTheChecks) {
  OpRequest op = big(Coll::all_gather, 1ull << 30);
  const auto plain = measured_deadline(op, 4, 0.001);
  op.check_every = true;
  const auto checked = measured_deadline(op, 4, 0.001);
  EXPECT_NEAR(double(checked.count() - 2000) / double(plain.count() - 2000), 46.0 / 26.0, 0.01);
}

TEST(OpDeadline, BackstopIsNeverBelowThePlannedDeadline) {
  OpRequest op = big(Coll::all_reduce, 1 << 20);
  op.timeout = std::chrono::milliseconds(90000);
  EXPECT_EQ(backstop_deadline(op).count(), 90000);
  op.bytes = 8ull << 30;  // at 10 MB/s: hours, far beyond any measured deadline
  EXPECT_GT(backstop_deadline(op).count(), 3600 * 1000);
}

}  // namespace
}  // namespace dd::comm
