// The straggler (issue 39) on real dumps and on made-up arrivals: the exit dumps of 2-rank PyTorch jobs on
// 2x H200 under `distdoctor launch` (fixtures/launch/h200x2_stragglers: rank 1 sleeps 250 ms before each
// step's all_reduce; the same from step 50 on; rank 1 behind busy processes on its cores; 120 s healthy) and
// 4x H200 (h200x4_stragglers: a process sharing rank 1's GPU; rank 1's slow data loader),
// 4 Gloo ranks on the CPU of a 1-GPU H200 machine (h200x1_gloo_stragglers: rank 1 asleep, behind busy cores,
// asleep from step 50, healthy), and arrivals of four ranks on two nodes whose clocks differ.
#include "logs/fr/fr_straggler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "logs/fr/fr_analysis.h"

namespace dd::logs {
namespace {

// The exit dumps of one recorded run: `ranks` ranks of fixtures/launch/SET/KASE.
std::vector<FrStraggler> recorded(const std::string& kase, const std::string& set = "h200x2_stragglers",
                                  int ranks = 2) {
  const std::string dir =
      std::string(DD_FIXTURE_DIR) + "/launch/" + set + "/" + kase + "/run/0/flight_recorder/exit_rank";
  std::vector<FlightRecord> records;
  for (int rank = 0; rank < ranks; ++rank) {
    auto r = read_flight_record_file(dir + std::to_string(rank));
    EXPECT_TRUE(r.ok()) << r.error().message();
    if (r.ok()) {
      r->rank = rank;
      records.push_back(std::move(*r));
    }
  }
  return find_stragglers(summarize_flight_records(records));
}

TEST(FrStraggler, ARankThatSleepsBeforeEachCollectiveIsNamedWithItsLateness) {
  const auto s = recorded("cpu_sleep");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rank, 1);
  EXPECT_EQ(s[0].others, std::vector<int>{0});
  EXPECT_GE(s[0].compared, 100u);
  EXPECT_GE(static_cast<double>(s[0].last), 0.95 * static_cast<double>(s[0].compared));
  EXPECT_NEAR(s[0].late_ms, 250, 10);
  EXPECT_GT(s[0].others_wait_share, 0.9);
  EXPECT_FALSE(s[0].fail_slow);
  EXPECT_NE(straggler_text(s[0]).find(
                "rank 1 arrives last at 100% of the 120 collectives of group 0 (default_pg) that "
                "a rank waited in (1 of 121 were ties within 1 ms), 250 ms late (median): rank 0 "
                "spends 98% of its time waiting for it"),
            std::string::npos)
      << straggler_text(s[0]);
}

TEST(FrStraggler, ARankThatTurnsSlowIsNamedWithWhereItBegan) {
  const auto s = recorded("late_slow");  // slow from step 50: collectives 101 on (two a step, one before)
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rank, 1);
  EXPECT_TRUE(s[0].fail_slow);
  EXPECT_NEAR(static_cast<double>(s[0].first_seq), 102, 2);
  EXPECT_LT(s[0].before_late_ms, 1);
  EXPECT_NEAR(s[0].late_ms, 250, 10);
  EXPECT_NE(straggler_text(s[0]).find("it became slow at collective"), std::string::npos);
}

TEST(FrStraggler, ARankBehindBusyCoresIsNamed) {
  const auto s = recorded("cpu_busy");
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rank, 1);
  EXPECT_GT(s[0].late_ms, 20);
  EXPECT_GT(s[0].others_wait_share, 0.5);
}

// 4x H200, PyTorch's NCCL timing on (launch's default): a second process runs 8192x8192 matmuls on rank 1's
// GPU. Every rank enqueues its collectives at the same time (each step ends in a synchronize), so arrivals
// name no one; rank 1's 4 MiB all_reduce kernel runs 0.05 ms, the others' 27 ms: they start it and wait for
// rank 1.
TEST(FrStraggler, AGpuSharedWithAnotherProcessIsNamedFromTheGpuTimes) {
  const auto s = recorded("gpu_hog", "h200x4_stragglers", 4);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rank, 1);
  EXPECT_TRUE(s[0].on_gpu);
  EXPECT_EQ(s[0].others, (std::vector<int>{0, 2, 3}));
  EXPECT_NEAR(s[0].late_ms, 27, 3);
  EXPECT_GE(s[0].compared, 140u) << "the 150 steps' 4 MiB all_reduce; the small one after it starts together";
  EXPECT_GT(s[0].others_wait_share, 0.4) << "27 ms of each 49 ms step";
  EXPECT_NE(straggler_text(s[0]).find("last on its GPU"), std::string::npos) << straggler_text(s[0]);
}

// 4x H200: rank 1's DataLoader takes 30 ms a sample (8 a batch, 2 workers); the others' 0.5 ms.
TEST(FrStraggler, ADataLoaderBoundRankIsNamedFromItsArrivals) {
  const auto s = recorded("loader", "h200x4_stragglers", 4);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rank, 1);
  EXPECT_FALSE(s[0].on_gpu);
  EXPECT_GT(s[0].late_ms, 50);
  EXPECT_GT(s[0].others_wait_share, 0.5);
}

TEST(FrStraggler, AHealthyRunOfTwoMinutesHasNone) {
  EXPECT_TRUE(recorded("healthy").empty());
  // 4x H200 with NCCL timing on, 121 s: no collective's kernels started 1 ms apart, by arrival or on the GPU.
  EXPECT_TRUE(recorded("healthy", "h200x4_stragglers", 4).empty());
}

// Ranks 0-3 of one group, collectives 0..n-1 every 100 ms; rank `late` `late_ms` later from `from` on;
// node 1 (ranks 2 and 3) with its clock `offset_ms` ahead.
FrSummary made_up(int late, double late_ms, int64_t from, double offset_ms, int n = 40) {
  FrSummary s;
  for (int rank = 0; rank < 4; ++rank) {
    FrRankSummary r;
    r.rank = rank;
    r.node = rank / 2;
    FrPgTrack t;
    t.pg_name = "0";
    t.pg_desc = "default_pg";
    t.members = {0, 1, 2, 3};
    t.arrival_first_seq = 0;
    for (int64_t seq = 0; seq < n; ++seq) {  // to the microsecond, as digests keep them
      int64_t us = 1'000'000 + 100'000 * seq + 50 * rank + (rank >= 2 ? std::llround(offset_ms * 1000) : 0);
      if (rank == late && seq >= from) us += std::llround(late_ms * 1000);
      t.arrival_ns.push_back(us * 1000);
    }
    r.groups.push_back(t);
    s.ranks.push_back(r);
  }
  return s;
}

// Gloo's collectives block: the step's small all_reduce after the late large one is created together on every
// rank, a tie that says nothing. Counted as "not last", they hid the sleeping rank (last at 60 of 121).
TEST(FrStraggler, BlockingGlooCollectivesAreJudgedWhereARankWaited) {
  const std::string set = "h200x1_gloo_stragglers";
  const auto sleep = recorded("cpu_sleep", set, 4);
  ASSERT_EQ(sleep.size(), 1u);
  EXPECT_EQ(sleep[0].rank, 1);
  EXPECT_EQ(sleep[0].others, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(sleep[0].waited, 60u);
  EXPECT_EQ(sleep[0].compared, 121u);
  EXPECT_NEAR(sleep[0].late_ms, 250, 10);
  EXPECT_NE(
      straggler_text(sleep[0]).find("rank 1 arrives last at 100% of the 60 collectives of group 0 "
                                    "(default_pg) that a rank waited in (61 of 121 were ties within 1 ms)"),
      std::string::npos)
      << straggler_text(sleep[0]);
  const auto busy = recorded("cpu_busy", set, 4);
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_EQ(busy[0].rank, 1);
  const auto turned = recorded("late_slow", set, 4);
  ASSERT_EQ(turned.size(), 1u);
  EXPECT_EQ(turned[0].rank, 1);
  EXPECT_TRUE(turned[0].fail_slow);
  EXPECT_NEAR(static_cast<double>(turned[0].first_seq), 102, 2);
  EXPECT_TRUE(recorded("healthy", set, 4).empty());
}

TEST(FrStraggler, ClocksOfTwoNodesAreNeverCompared) {
  EXPECT_TRUE(find_stragglers(made_up(-1, 0, 0, 500)).empty()) << "node 1's clock is ahead, nobody is late";
  const auto s = find_stragglers(made_up(3, 60, 0, 500));  // rank 3 late against rank 2, on node 1's clock
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rank, 3);
  EXPECT_EQ(s[0].node, 1);
  EXPECT_EQ(s[0].others, std::vector<int>{2});
  EXPECT_NEAR(s[0].late_ms, 60, 0.5);
  EXPECT_NEAR(s[0].others_wait_share, 0.6, 0.05) << "60 ms of each 100";
}

TEST(FrStraggler, NodesUnknownCompareAllRanksAsOneClock) {
  FrSummary s = made_up(1, 30, 10, 0, 60);
  for (auto& r : s.ranks) r.node = -1;
  const auto g = find_stragglers(s);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].rank, 1);
  EXPECT_EQ(g[0].others, (std::vector<int>{0, 2, 3}));
  EXPECT_TRUE(g[0].fail_slow);
  EXPECT_EQ(g[0].first_seq, 10);
  EXPECT_NEAR(g[0].slow_after_s, 1.0, 0.01);
  EXPECT_NEAR(g[0].others_wait_share, 0.3, 0.02) << "30 ms of each 100";
  EXPECT_NE(straggler_text(g[0]).find("ranks 0,2-3 spend 3"), std::string::npos) << straggler_text(g[0]);
}

// A rank that kept up and then came last for under kFailSlowMinSpanS is a hiccup; for longer, it turned slow.
TEST(FrStraggler, AShortSlowSpellAtTheEndIsAHiccup) {
  FrSummary s = made_up(1, 30, 40, 0, 60);  // late for the last 20 collectives: 1.9 s
  for (auto& r : s.ranks) r.node = -1;
  EXPECT_TRUE(find_stragglers(s).empty());
  s = made_up(1, 30, 40, 0, 80);  // the last 40: 3.9 s
  for (auto& r : s.ranks) r.node = -1;
  const auto g = find_stragglers(s);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_TRUE(g[0].fail_slow);
  EXPECT_EQ(g[0].first_seq, 40);
  // Recorded: 4 Gloo ranks, 30 s healthy; rank 3 came last by ~20 ms in the last 27 steps of 561.
  EXPECT_TRUE(recorded("healthy_blip", "h200x1_gloo_stragglers", 4).empty());
}

TEST(FrStraggler, SmallOrRareLatenessIsNoStraggler) {
  FrSummary s = made_up(1, 3, 0, 0);  // 3 ms late every time: under the 5 ms median
  for (auto& r : s.ranks) r.node = -1;
  EXPECT_TRUE(find_stragglers(s).empty());
  s = made_up(1, 200, 37, 0);  // late at the last 3 of 40 only: too few to name
  for (auto& r : s.ranks) r.node = -1;
  EXPECT_TRUE(find_stragglers(s).empty());
}

// GPU times on made_up's ranks: every collective ends 30 ms after the latest arrival; rank `late`'s kernel
// starts `late_ms` after the others' (its GPU was busy), so it runs that much shorter.
void time_on_gpu(FrSummary& s, int late, double late_ms) {
  for (auto& r : s.ranks)
    for (auto& t : r.groups) {
      t.gpu_ns.clear();
      for (size_t i = 0; i < t.arrival_ns.size(); ++i)
        t.gpu_ns.push_back(30'000'000 - (r.rank == late ? std::llround(late_ms * 1e6) : 0));
    }
}

TEST(FrStraggler, GpuTimesNameARankWhoseKernelsStartLateOnAnyNode) {
  FrSummary s = made_up(-1, 0, 0, 500);  // arrivals agree on each node; node 1's clock is 500 ms ahead
  EXPECT_TRUE(find_stragglers(s).empty()) << "no GPU times: nobody is late";
  time_on_gpu(s, 3, 20);
  const auto g = find_stragglers(s);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].rank, 3);
  EXPECT_TRUE(g[0].on_gpu);
  EXPECT_EQ(g[0].others, (std::vector<int>{0, 1, 2})) << "GPU times are compared across nodes";
  EXPECT_NEAR(g[0].late_ms, 20, 0.01);
  EXPECT_NEAR(g[0].others_wait_share, 0.2, 0.02) << "20 ms of each 100";
  EXPECT_NE(straggler_text(g[0]).find(
                "rank 3 starts 40 of 40 collectives of group 0 (default_pg) last on its GPU, 20 ms late"),
            std::string::npos)
      << straggler_text(g[0]);
  time_on_gpu(s, 3, 0.5);  // under the 1 ms margin
  EXPECT_TRUE(find_stragglers(s).empty());
}

TEST(FrStraggler, ArrivalsNameTheRankFirstAndGpuTimesAddNoSecondFinding) {
  FrSummary s = made_up(1, 30, 0, 0);
  for (auto& r : s.ranks) r.node = -1;
  time_on_gpu(s, 1, 30);  // its kernels start late because it enqueued them late
  const auto g = find_stragglers(s);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].rank, 1);
  EXPECT_FALSE(g[0].on_gpu);
}

TEST(FrStraggler, GpuTimesTravelInTheDigestsJson) {
  FrSummary s = made_up(-1, 0, 0, 0);
  time_on_gpu(s, 2, 7);
  s.ranks[1].groups[0].gpu_ns[3] = -1;  // one collective not timed
  auto back = fr_summary_from_json(fr_summary_to_json(s));
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, s);
  nlohmann::json bad = fr_summary_to_json(s);
  bad["ranks"][0]["groups"][0]["gpu"].erase(0);
  EXPECT_FALSE(fr_summary_from_json(bad).ok()) << "GPU times not one per arrival";
  bad = fr_summary_to_json(s);
  bad["ranks"][0]["groups"][0]["gpu"][0] = -7;
  EXPECT_FALSE(fr_summary_from_json(bad).ok());
}

TEST(FrStraggler, ArrivalsTravelInTheDigestsJson) {
  FrSummary s = made_up(1, 30, 0, 0);
  auto back = fr_summary_from_json(fr_summary_to_json(s));
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, s);
  nlohmann::json old = fr_summary_to_json(s);  // a digest from before arrivals: none, no error
  for (auto& r : old["ranks"]) {
    r.erase("node");
    for (auto& g : r["groups"]) g.erase("arr");
  }
  back = fr_summary_from_json(old);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_TRUE(back->ranks[0].groups[0].arrival_ns.empty());
  EXPECT_EQ(back->ranks[0].node, -1);
  nlohmann::json bad = fr_summary_to_json(s);
  bad["ranks"][0]["groups"][0]["arr"][2] = -5;
  EXPECT_FALSE(fr_summary_from_json(bad).ok()) << "an arrival out of range is refused";
  bad["ranks"][0]["groups"][0]["arr"][2] = INT64_MAX / 100;
  EXPECT_FALSE(fr_summary_from_json(bad).ok()) << "one past what an int64 of nanoseconds holds";
  // Times from the start of the epoch to now in one dump (a fuzzed or broken one) still make the trip.
  s.ranks[0].groups[0].arrival_ns[0] = 0;
  s.ranks[0].groups[0].arrival_ns[1] = int64_t{1'795'874'503'891'000'000};
  back = fr_summary_from_json(fr_summary_to_json(s));
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, s);
}

}  // namespace
}  // namespace dd::logs
