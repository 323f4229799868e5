// Tests of the meeting steps every rendezvous uses (meeting_keys.h, meeting_join.h, meeting_wait.h) over the
// real stores: the in-process MemoryStore and the embedded TCP store (server and clients on loopback).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "rendezvous/meeting_join.h"
#include "rendezvous/meeting_keys.h"
#include "rendezvous/meeting_wait.h"
#include "rendezvous/memory_store.h"
#include "rendezvous/tcp_test_util.h"

namespace dd::rendezvous {
namespace {

using namespace std::chrono_literals;
using testing::soon;

// A member's record and the meeting it joins: claim, then publish.
void meet_as(Store& s, const MeetingKeys& keys, int rank) {
  auto c = claim_rank(s, keys, rank, soon());
  ASSERT_TRUE(c.ok()) << c.error().message();
  ASSERT_EQ(*c, 1);
  ASSERT_TRUE(publish_member(s, keys, rank, "rank " + std::to_string(rank), {}, soon()).ok());
}

TEST(MeetingKeys, OneSchemeUnderThePrefix) {
  MeetingKeys k("dd");
  EXPECT_EQ(k.prefix(), "dd/");
  EXPECT_EQ(k.claim(3), "dd/claim/3");
  EXPECT_EQ(k.member(3), "dd/member/3");
  EXPECT_EQ(k.live(3), "dd/~live/3");
  EXPECT_TRUE(is_live_key(k.live(3)));
  EXPECT_EQ(k.dup(1, 2), "dd/dup/1/2");
  EXPECT_EQ(k.at("go"), "dd/go");
  EXPECT_EQ(k.of("mesh", 0), "dd/mesh/0");
  MeetingKeys launch("launch/");
  EXPECT_EQ(launch.sub("a3").of("beat", 1), "launch/a3/beat/1");
  EXPECT_EQ(launch.sub("preflight").claim(0), "launch/preflight/claim/0");
  EXPECT_TRUE(is_live_key(launch.sub("preflight").live(0)));
}

TEST(MeetingSteps, ClaimTwiceGivesTheCountOnBothStores) {
  auto server = testing::serve();
  auto tcp = testing::client(server->port());
  ASSERT_TRUE(tcp);
  MemoryStore mem;
  const MeetingKeys keys("dd/");
  for (Store* s : {static_cast<Store*>(&mem), static_cast<Store*>(tcp.get())}) {
    EXPECT_EQ(*claim_rank(*s, keys, 1, soon()), 1);
    EXPECT_EQ(*claim_rank(*s, keys, 1, soon()), 2);  // the second claimer sees the rank is held
    EXPECT_EQ(*claim_rank(*s, keys, 0, soon()), 1);
    EXPECT_EQ(*s->add("dd/claim/1", 0, soon()), 2);
  }
}

TEST(MeetingSteps, PublishSetsLiveKeyAndWhatComesBeforeTheMember) {
  MemoryStore s;
  const MeetingKeys keys("launch/");
  ASSERT_TRUE(
      publish_member(s, keys, 0, R"({"host":"n0"})", {StoreOp::set(keys.at("job"), "settings")}, soon())
          .ok());
  EXPECT_EQ(*s.get("launch/member/0", soon()), R"({"host":"n0"})");
  EXPECT_EQ(*s.get("launch/job", soon()), "settings");
  EXPECT_EQ(*s.get("launch/~live/0", soon()), "1");
  EXPECT_EQ((*s.list("launch/", soon())).size(), 3u);
}

TEST(MeetingSteps, WaitForAllNamesTheMissingRanksAtTheDeadline) {
  MemoryStore s;
  const MeetingKeys keys("dd/");
  meet_as(s, keys, 0);
  meet_as(s, keys, 2);
  const auto t0 = Clock::now();
  auto w = wait_for_all(s, keys, {.ranks = all_ranks(4), .until = t0 + 400ms, .poll = 20ms});
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_GE(Clock::now() - t0, 400ms);
  EXPECT_LT(Clock::now() - t0, 3s);
  EXPECT_EQ(w->missing, (std::vector<int>{1, 3}));
  EXPECT_FALSE(w->stopped);
  ASSERT_EQ(w->arrived.size(), 4u);
  EXPECT_TRUE(w->arrived[0] && w->arrived[2]);
  EXPECT_FALSE(w->arrived[1] || w->arrived[3]);
}

TEST(MeetingSteps, WaitForAllEndsWhenTheLastArrivesAndReportsProgress) {
  auto server = testing::serve();
  auto leader = testing::client(server->port());
  auto late = testing::client(server->port());
  ASSERT_TRUE(leader && late);
  const MeetingKeys keys("dd/");
  meet_as(*leader, keys, 0);
  std::thread joiner([&] {
    std::this_thread::sleep_for(400ms);
    meet_as(*late, keys, 1);
  });
  std::vector<std::pair<size_t, std::vector<int>>> calls;
  const auto t0 = Clock::now();
  auto w = wait_for_all(*leader, keys,
                        {.ranks = all_ranks(2),
                         .until = t0 + 10s,
                         .poll = 20ms,
                         .progress =
                             [&](const WaitProgress& p) {
                               calls.push_back({p.arrived, p.missing});
                             },
                         .progress_every = 100ms});
  joiner.join();
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_TRUE(w->missing.empty());
  EXPECT_LT(Clock::now() - t0, 5s) << "the wait ends with the last arrival, not at its deadline";
  // Every 100 ms while rank 1 was away (400 ms): at least twice, each naming it.
  ASSERT_GE(calls.size(), 2u);
  for (const auto& [arrived, missing] : calls) {
    EXPECT_EQ(arrived, 1u);
    EXPECT_EQ(missing, std::vector<int>{1});
  }
}

TEST(MeetingSteps, ProgressOnChangeIsCalledAtOnceAndWhenTheCountChanges) {
  MemoryStore s;
  const MeetingKeys keys("dd/");
  std::vector<size_t> counts;
  std::thread joiner([&] {
    std::this_thread::sleep_for(200ms);
    meet_as(s, keys, 0);
  });
  auto w = wait_for_all(s, keys,
                        {.ranks = all_ranks(2),
                         .until = Clock::now() + 700ms,
                         .poll = 20ms,
                         .progress = [&](const WaitProgress& p) { counts.push_back(p.arrived); },
                         .progress_every = 1h,
                         .progress_on_change = true});
  joiner.join();
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->missing, std::vector<int>{1});
  EXPECT_EQ(counts, (std::vector<size_t>{0, 1}));  // the first round, then rank 0's arrival; no repeats
}

TEST(MeetingSteps, StopPredicateEndsTheWait) {
  MemoryStore s;
  const MeetingKeys keys("launch/");
  std::atomic<bool> stop{false};
  std::thread signal([&] {
    std::this_thread::sleep_for(200ms);
    stop = true;
  });
  const auto t0 = Clock::now();
  auto w = wait_for_all(
      s, keys, {.ranks = all_ranks(2), .until = t0 + 20s, .poll = 20ms, .stop = [&] { return stop.load(); }});
  signal.join();
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->stopped);
  EXPECT_EQ(w->missing, (std::vector<int>{0, 1}));
  EXPECT_LT(Clock::now() - t0, 5s);
}

TEST(MeetingSteps, PrefixIsolatesTwoMeetingsOnOneStore) {
  auto server = testing::serve();
  auto a = testing::client(server->port());
  auto b = testing::client(server->port());
  ASSERT_TRUE(a && b);
  const MeetingKeys check("dd/"), launch("launch/");
  meet_as(*a, check, 0);
  meet_as(*a, check, 1);
  meet_as(*b, launch, 0);  // the same rank claimed in the other meeting: its own claim counter
  auto full = wait_for_all(*b, check, {.ranks = all_ranks(2), .until = Clock::now() + 5s, .poll = 20ms});
  ASSERT_TRUE(full.ok());
  EXPECT_TRUE(full->missing.empty());
  auto half = wait_for_all(*a, launch, {.ranks = all_ranks(2), .until = Clock::now() + 300ms, .poll = 20ms});
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->missing, std::vector<int>{1});
  EXPECT_EQ(*claim_rank(*a, launch, 1, soon()), 1);
  EXPECT_EQ(*claim_rank(*a, check, 1, soon()), 2);
}

TEST(MeetingSteps, LivenessStopsWaitingForAMemberThatLeft) {
  auto server = testing::serve();
  auto leader = testing::client(server->port());
  auto member = testing::client(server->port());
  ASSERT_TRUE(leader && member);
  const MeetingKeys keys("dd/");
  meet_as(*leader, keys, 0);
  meet_as(*member, keys, 1);
  ASSERT_TRUE(leader->set(keys.of("mesh", 0), "[]", soon()).ok());
  member.reset();  // its process died: the connection closes and its live key goes with it
  const auto t0 = Clock::now();
  auto w = wait_for_all(*leader, keys,
                        {.ranks = {0, 1}, .what = "mesh", .until = t0 + 20s, .poll = 20ms, .liveness = true});
  ASSERT_TRUE(w.ok()) << w.error().message();
  EXPECT_EQ(w->gone, std::vector<int>{1});
  EXPECT_TRUE(w->missing.empty());
  EXPECT_LT(Clock::now() - t0, 10s) << "named gone, not waited for until the deadline";
  EXPECT_EQ(gone_ranks(*leader, keys, {0, 1}, soon()), std::vector<int>{1});
}

TEST(MeetingSteps, WaitWithoutLivenessWaitsForTheDeadlineOnAStoreThatKeepsLiveKeys) {
  MemoryStore s;  // keeps every key: a member that left looks alive, so the deadline names it
  const MeetingKeys keys("dd/");
  meet_as(s, keys, 0);
  auto w = wait_for_all(
      s, keys, {.ranks = {0}, .what = "mesh", .until = Clock::now() + 300ms, .poll = 20ms, .liveness = true});
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->gone.empty());
  EXPECT_EQ(w->missing, std::vector<int>{0});
}

}  // namespace
}  // namespace dd::rendezvous
