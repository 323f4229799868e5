// The hang analysis on hand-made watchdog records: the odd one out by op and by size, a rank ahead, a rank
// left behind by the others, a late rank, a rank that never issued the collective, a silent one, and the
// cases where the logs cannot say (a tie, every rank in the same collective).
#include "logs/hang_analysis.h"

#include <gtest/gtest.h>

namespace dd::logs {
namespace {

constexpr int64_t kS = 1000000;  // log_time_key is in microseconds

WatchdogTimeout timeout(int rank, int64_t seq, std::string op, int64_t t_s, int64_t numel = 1024) {
  WatchdogTimeout w;
  w.at = Where{.file = "torchrun.log", .line = static_cast<uint64_t>(10 + rank)};
  w.rank = rank;
  w.seq = seq;
  w.op = std::move(op);
  w.numel_in = w.numel_out = numel;
  w.timeout_ms = 10000;
  w.time = t_s * kS;
  w.pg = "0(default_pg)";
  w.last_enqueued = seq + 1;
  w.last_completed = seq - 1;
  return w;
}

WatchdogTimeout status(int rank, int64_t enqueued, int64_t t_s) {
  WatchdogTimeout w;
  w.at = Where{.file = "torchrun.log", .line = static_cast<uint64_t>(30 + rank)};
  w.rank = rank;
  w.last_enqueued = w.last_completed = enqueued;
  w.time = t_s * kS;
  w.pg = "0(default_pg)";
  return w;
}

HangVerdict only(const std::vector<WatchdogTimeout>& ws, const std::vector<int>& known = {}) {
  auto vs = analyze_hangs(ws, known);
  EXPECT_EQ(vs.size(), 1u);
  return vs.empty() ? HangVerdict{} : vs[0];
}

TEST(HangAnalysis, OddOneOutByOp) {
  auto v = only({timeout(0, 7, "ALLREDUCE", 100), timeout(1, 7, "ALLREDUCE", 100),
                 timeout(2, 7, "ALLREDUCE", 100), timeout(3, 7, "BROADCAST", 100)});
  EXPECT_EQ(v.kind, HangKind::desync);
  EXPECT_EQ(v.culprits, std::vector<int>({3}));
  EXPECT_EQ(v.waiters, std::vector<int>({0, 1, 2}));
  EXPECT_EQ(v.op, "ALLREDUCE");
  EXPECT_EQ(v.seq, 7);
  EXPECT_EQ(v.culprit_op.substr(0, 9), "BROADCAST");
  EXPECT_EQ(pg_name(v.pg), "default_pg");
}

TEST(HangAnalysis, OddOneOutBySize) {
  auto v = only({timeout(0, 8, "ALLGATHER", 50, 1024), timeout(1, 8, "ALLGATHER", 50, 1024),
                 timeout(2, 8, "ALLGATHER", 50, 2048)});
  EXPECT_EQ(v.kind, HangKind::desync);
  EXPECT_EQ(v.culprits, std::vector<int>({2}));
  EXPECT_NE(v.culprit_op.find("NumelIn=2048"), std::string::npos) << v.culprit_op;
}

TEST(HangAnalysis, RankAheadTookAnotherPath) {  // issue 30: ranks 0-2 at 13, rank 3 at 14, all at 20 s
  auto v = only({timeout(0, 13, "ALLREDUCE", 20), timeout(1, 13, "ALLREDUCE", 20),
                 timeout(2, 13, "ALLREDUCE", 20), timeout(3, 14, "ALLREDUCE", 20)});
  EXPECT_EQ(v.kind, HangKind::ahead);
  EXPECT_EQ(v.culprits, std::vector<int>({3}));
  EXPECT_EQ(v.seq, 13);
  EXPECT_EQ(v.culprit_seq, 14);
}

TEST(HangAnalysis, RankLeftBehindByTheOthers) {
  auto v = only({timeout(0, 14, "ALLGATHER", 20), timeout(1, 14, "ALLGATHER", 20),
                 timeout(2, 14, "ALLGATHER", 20), timeout(3, 13, "ALLREDUCE", 20)});
  EXPECT_EQ(v.kind, HangKind::desync);
  EXPECT_EQ(v.culprits, std::vector<int>({3}));
  EXPECT_EQ(v.waiters, std::vector<int>({0, 1, 2}));
  EXPECT_TRUE(v.op.empty());  // what the others issued at 13 completed for them: not in the logs
}

TEST(HangAnalysis, LateRankTimesOutLaterAtAHigherNumber) {  // issue 30: ranks 1-3 at 13, rank 0 later at 15
  auto v = only({timeout(1, 13, "ALLREDUCE", 100), timeout(2, 13, "ALLREDUCE", 100),
                 timeout(3, 13, "ALLREDUCE", 100), status(0, 12, 101), timeout(0, 15, "ALLGATHER", 160)});
  EXPECT_EQ(v.kind, HangKind::late);
  EXPECT_EQ(v.culprits, std::vector<int>({0}));
  EXPECT_EQ(v.culprit_enqueued, 12);
  EXPECT_EQ(v.culprit_seq, 15);
  EXPECT_EQ(v.culprit_time - v.first_time, 60 * kS);
}

TEST(HangAnalysis, RankThatNeverIssuedIt) {
  auto v = only({timeout(1, 7, "ALLREDUCE", 100), timeout(2, 7, "ALLREDUCE", 100), status(0, 6, 101)});
  EXPECT_EQ(v.kind, HangKind::missing);
  EXPECT_EQ(v.culprits, std::vector<int>({0}));
  EXPECT_EQ(v.culprit_enqueued, 6);
  EXPECT_FALSE(v.culprit_silent);
}

TEST(HangAnalysis, SilentRankOfTheJob) {
  auto v = only({timeout(0, 7, "ALLREDUCE", 100), timeout(1, 7, "ALLREDUCE", 100)}, {0, 1, 2});
  EXPECT_EQ(v.kind, HangKind::missing);
  EXPECT_EQ(v.culprits, std::vector<int>({2}));
  EXPECT_TRUE(v.culprit_silent);
}

TEST(HangAnalysis, TheLogsCannotSay) {
  auto same = only({timeout(0, 7, "ALLREDUCE", 100), timeout(1, 7, "ALLREDUCE", 100)}, {0, 1});
  EXPECT_EQ(same.kind, HangKind::unknown);
  EXPECT_TRUE(same.culprits.empty());
  auto tie = only({timeout(0, 7, "ALLREDUCE", 100), timeout(1, 7, "BROADCAST", 100)});
  EXPECT_NE(tie.kind, HangKind::desync);                            // one against one: no odd one out
  EXPECT_TRUE(analyze_hangs({status(0, 6, 100)}, {0, 1}).empty());  // nobody timed out
}

TEST(HangAnalysis, RestatedTimeoutsAndDumpRequestsDoNotCount) {
  WatchdogTimeout dump = status(3, -1, 90);
  dump.dump_only = true;
  dump.last_enqueued = dump.last_completed = -1;
  auto v = only({dump, timeout(0, 7, "ALLREDUCE", 100), timeout(1, 7, "ALLREDUCE", 100),
                 timeout(2, 7, "ALLREDUCE", 100), status(3, 6, 101)});
  EXPECT_EQ(v.kind, HangKind::missing);
  EXPECT_EQ(v.culprits, std::vector<int>({3}));
  EXPECT_EQ(rank_commas(v.waiters), "0, 1, 2");
}

}  // namespace
}  // namespace dd::logs
