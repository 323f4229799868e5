// Clock offsets between nodes (clock_offsets.h): measured through a real in-process store by two and three
// "nodes" in threads, published by node rank 0, and used to compare a rank alone on its node with the others.
#include "launch/clock_offsets.h"

#include <gtest/gtest.h>

#include <thread>

#include "logs/fr/fr_straggler.h"
#include "rendezvous/memory_store.h"

namespace dd::launch {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST(ClockOffsets, EveryNodeLearnsTheOffsetsNodeRankZeroMeasured) {
  rendezvous::MemoryStore store;
  const rendezvous::MeetingKeys keys{"launch/"};
  Result<std::vector<ClockOffset>> other = Error::make(ErrorKind::other, "not run");
  std::thread t(
      [&] { other = measure_clock_offsets(store, keys, 1, 2, steady_clock::now() + milliseconds(3000)); });
  auto zero = measure_clock_offsets(store, keys, 0, 2, steady_clock::now() + milliseconds(3000));
  t.join();
  ASSERT_TRUE(zero.ok()) << zero.error().message();
  ASSERT_TRUE(other.ok()) << other.error().message();
  ASSERT_EQ(zero->size(), 2u);
  EXPECT_EQ((*zero)[0], (ClockOffset{0, 0}));
  EXPECT_NEAR((*zero)[1].offset_ms, 0, 50) << "one clock: no offset but the round trip's";
  EXPECT_GE((*zero)[1].error_ms, 0);
  EXPECT_LE(std::abs((*zero)[1].offset_ms), (*zero)[1].error_ms + 1) << "within the error it gives";
  EXPECT_EQ(*other, *zero) << "node rank 1 read what node rank 0 published";
}

TEST(ClockOffsets, ANodeThatNeverAnswersHasNone) {
  rendezvous::MemoryStore store;
  const auto t0 = steady_clock::now();
  auto zero = measure_clock_offsets(store, rendezvous::MeetingKeys{"launch/"}, 0, 2, t0 + milliseconds(300));
  ASSERT_TRUE(zero.ok()) << zero.error().message();
  EXPECT_TRUE(std::isnan((*zero)[1].offset_ms));
  EXPECT_LT(steady_clock::now() - t0, milliseconds(2000)) << "the round ends at its deadline";
  nlohmann::json j = *zero;
  EXPECT_EQ(j.dump(), "[[0.0,0.0],[]]");
  EXPECT_EQ(j.get<std::vector<ClockOffset>>()[0], (ClockOffset{0, 0}));
  EXPECT_TRUE(std::isnan(j.get<std::vector<ClockOffset>>()[1].offset_ms));
}

// Ranks 0-2 on node 0, rank 3 alone on node 1 whose clock is 500 ms ahead; rank 3 issues every collective
// 30 ms after the others.
logs::FrSummary two_nodes() {
  logs::FrSummary s;
  for (int rank = 0; rank < 4; ++rank) {
    logs::FrRankSummary r{.rank = rank, .node = rank == 3 ? 1 : 0};
    logs::FrPgTrack t{.pg_name = "0", .pg_desc = "default_pg", .members = {0, 1, 2, 3}};
    t.arrival_first_seq = 0;
    for (int64_t seq = 0; seq < 40; ++seq)
      t.arrival_ns.push_back((1'000'000 + 100'000 * seq + (rank == 3 ? 500'000 + 30'000 : 10 * rank)) * 1000);
    r.groups.push_back(t);
    s.ranks.push_back(r);
  }
  return s;
}

TEST(ClockOffsets, ARankAloneOnItsNodeIsComparedOnceTheOffsetsAreKnown) {
  logs::FrSummary s = two_nodes();
  EXPECT_TRUE(logs::find_stragglers(s).empty()) << "alone on its clock: compared with nobody";
  EXPECT_FALSE(align_fr_clocks(s, {{0, 0}, {500, 5}})) << "known to 5 ms only: not enough";
  EXPECT_FALSE(align_fr_clocks(s, {{0, 0}})) << "node 1's offset unknown";
  ASSERT_TRUE(align_fr_clocks(s, {{0, 0}, {500, 0.4}}));
  const auto g = logs::find_stragglers(s);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].rank, 3);
  EXPECT_EQ(g[0].node, logs::kClocksAligned);
  EXPECT_EQ(g[0].others, (std::vector<int>{0, 1, 2}));
  EXPECT_NEAR(g[0].late_ms, 30, 0.1);
}

}  // namespace
}  // namespace dd::launch
