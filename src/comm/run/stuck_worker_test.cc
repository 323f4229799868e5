// StuckWatch on hand-made /proc samples: a stop counts after 1.5 s (at the run's end however brief), D only
// when long and nothing progressed, a zombie only when it lasts, a resumed or reaped worker is forgotten; the
// wording of each state.
#include "comm/run/stuck_worker.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace dd::comm {
namespace {

using namespace std::chrono_literals;
using rendezvous::Clock;

probe::ProcSnapshot snap(char state, int sig = 0, const std::string& wchan = "") {
  probe::ProcSnapshot s;
  s.ok = true;
  s.state = state;
  s.state_name = std::string(1, state) + " (x)";
  s.stop_signal = sig;
  s.wchan = wchan;
  return s;
}

TEST(StuckWatch, StoppedWorkerCountsAfterItsBound) {
  StuckWatch w;
  const auto t0 = Clock::now();
  w.sample(0, 100, snap('S'), t0);
  w.sample(1, 101, snap('T', SIGSTOP), t0);
  EXPECT_FALSE(w.stuck(t0 + 1s, t0));
  w.sample(1, 101, snap('T', SIGSTOP), t0 + 1s);
  auto s = w.stuck(t0 + 1600ms, t0 + 1500ms);  // progress of others does not excuse a stop
  ASSERT_TRUE(s);
  EXPECT_EQ(s->worker, 1);
  EXPECT_EQ(s->pid, 101);
  EXPECT_EQ(s->since, t0);
  EXPECT_EQ(stuck_text(*s), "stopped (state T, SIGSTOP)");
}

TEST(StuckWatch, ResumedOrReapedWorkerIsForgotten) {
  StuckWatch w;
  const auto t0 = Clock::now();
  w.sample(2, 7, snap('T', SIGTSTP), t0);
  w.sample(2, 7, snap('R'), t0 + 1s);
  EXPECT_FALSE(w.stuck(t0 + 5s, t0));
  EXPECT_FALSE(w.at_end(t0 + 5s, t0));
  w.sample(2, 7, snap('T'), t0 + 6s);
  w.sample(2, 7, probe::ProcSnapshot{}, t0 + 7s);  // unreadable: gone
  EXPECT_FALSE(w.stuck(t0 + 9s, t0));
}

TEST(StuckWatch, BriefStopCountsOnlyAtTheEnd) {
  StuckWatch w;
  const auto t0 = Clock::now();
  w.sample(0, 5, snap('T', SIGSTOP), t0);
  EXPECT_FALSE(w.stuck(t0 + 200ms, t0));
  auto s = w.at_end(t0 + 200ms, t0);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->worker, 0);
}

TEST(StuckWatch, UninterruptibleOnlyWhenLongAndNothingMoved) {
  StuckWatch w;
  const auto t0 = Clock::now();
  w.sample(3, 9, snap('D', 0, "nfs_wait"), t0);
  EXPECT_FALSE(w.stuck(t0 + 5s, t0 - 1s));
  EXPECT_FALSE(w.stuck(t0 + 9s, t0 + 4s));  // another rank progressed meanwhile: a slow call, not a hang
  auto s = w.stuck(t0 + 9s, t0 - 1s);
  ASSERT_TRUE(s);
  EXPECT_EQ(stuck_text(*s), "stuck in the kernel (state D, in nfs_wait)");
  EXPECT_FALSE(w.at_end(t0 + 1s, t0 - 1s));  // at the end too, D counts only past its bound
}

TEST(StuckWatch, ZombieOnlyWhenItLastsAndTheLongestLeads) {
  StuckWatch w;
  const auto t0 = Clock::now();
  w.sample(0, 1, snap('Z'), t0);
  EXPECT_FALSE(w.at_end(t0 + 100ms, t0));  // a worker that just exited is a zombie until reaped
  w.sample(1, 2, snap('t'), t0 - 1s);
  auto s = w.stuck(t0 + 2s, t0);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->worker, 1);  // stopped first
  EXPECT_EQ(stuck_text(*s), "held by a debugger (state t)");
  w.sample(1, 2, snap('S'), t0 + 2s);
  s = w.stuck(t0 + 2s, t0);
  ASSERT_TRUE(s);
  EXPECT_EQ(stuck_text(*s), "a zombie (state Z: its main thread exited, others did not)");
}

}  // namespace
}  // namespace dd::comm
