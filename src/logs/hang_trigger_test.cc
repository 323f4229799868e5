// hang_trigger() on the real torchrun output of fixtures/logs/h100x4_hangs and on healthy logs.
#include "logs/hang_trigger.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace dd::logs {
namespace {

const std::string kTriggerHangs = std::string(DD_FIXTURE_DIR) + "/logs/h100x4_hangs/";

std::vector<HangTrigger> triggers_in(const std::string& path) {
  std::ifstream in(path);
  std::vector<HangTrigger> out;
  for (std::string line; std::getline(in, line);)
    if (auto t = hang_trigger(line)) out.push_back(*t);
  return out;
}

TEST(HangTrigger, FirstWatchdogLineOfTheRealDesync) {
  auto ts = triggers_in(kTriggerHangs + "desync_op/torchrun.log");
  ASSERT_FALSE(ts.empty());
  const HangTrigger& first = ts.front();
  EXPECT_EQ(first.kind, HangTrigger::Kind::watchdog_timeout);
  EXPECT_EQ(first.seq, 7);
  EXPECT_EQ(first.op, "ALLREDUCE");
  EXPECT_TRUE(first.rank == 1 || first.rank == 2) << first.rank;
  bool broadcast = false;
  for (const auto& t : ts) broadcast |= t.rank == 3 && t.op == "BROADCAST" && t.seq == 7;
  EXPECT_TRUE(broadcast);
}

TEST(HangTrigger, DumpRequestsAreNotTriggers) {
  EXPECT_FALSE(
      hang_trigger("[rank3]:[E1127 00:28:12.664228250 ProcessGroupNCCL.cpp:1628] [PG ID 0 PG GUID "
                   "0(default_pg) Rank 3] ProcessGroupNCCL preparing to dump debug info. Include "
                   "stack trace: 1, only active collectives: 0"));
  auto t = hang_trigger(
      "[rank0]:[E1127 00:28:17.995163061 ProcessGroupNCCL.cpp:1849] [PG ID 0 PG GUID 0(default_pg) Rank 0] "
      "Observed flight recorder dump signal from another rank via TCPStore.");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->kind, HangTrigger::Kind::dump_signal);
  EXPECT_EQ(t->rank, 0);
  EXPECT_EQ(t->seq, -1);
}

TEST(HangTrigger, RankFromTheBracketWithoutAPrefix) {
  auto t = hang_trigger(
      "[E1127 00:28:17.968307486 ProcessGroupNCCL.cpp:2303] [PG ID 0 PG GUID 0(default_pg) "
      "Rank 2]  failure detected by watchdog at work sequence id: 7 PG status: last "
      "enqueued work: 8, last completed work: 6");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->rank, 2);
  EXPECT_EQ(t->seq, 7);
  EXPECT_STREQ(hang_trigger_kind_name(t->kind), "watchdog_timeout");
}

TEST(HangTrigger, HealthyAndCrashLogsHaveNone) {
  for (const char* c : {"sigkill", "exception", "dataloader", "late_init", "desync_size"})
    EXPECT_TRUE(triggers_in(kTriggerHangs + c + "/torchrun.log").empty()) << c;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(std::string(DD_FIXTURE_DIR) + "/logs/healthy")) {
    if (e.is_regular_file()) {
      EXPECT_TRUE(triggers_in(e.path().string()).empty()) << e.path();
    }
  }
}

}  // namespace
}  // namespace dd::logs
