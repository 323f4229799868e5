// The launcher's signal handlers: SIGUSR1, SIGUSR2 and SIGALRM (whose default action ends a process) are
// counted to be passed on and leave the process running; each is taken once; stop signals are counted apart.
#include "launch/stop_signals.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace dd::launch {
namespace {

TEST(StopSignals, SchedulerSignalsAreTakenToPassOnNotFatal) {
  install_stop_signals();
  ASSERT_EQ(::raise(SIGALRM), 0);  // the process would end here without the handler
  ASSERT_EQ(::raise(SIGUSR1), 0);
  ASSERT_EQ(::raise(SIGUSR1), 0);
  EXPECT_EQ(take_forward_signals(), (std::vector<int>{SIGUSR1, SIGALRM}));
  EXPECT_TRUE(take_forward_signals().empty()) << "each arrival is taken once";
  ASSERT_EQ(::raise(SIGUSR2), 0);
  EXPECT_EQ(take_forward_signals(), (std::vector<int>{SIGUSR2}));
  EXPECT_EQ(stop_signal(), 0);
  EXPECT_EQ(stop_signal_count(), 0);
  ASSERT_EQ(::raise(SIGTERM), 0);
  ASSERT_EQ(::raise(SIGINT), 0);
  EXPECT_EQ(stop_signal(), SIGTERM);
  EXPECT_EQ(stop_signal_count(), 2);
  EXPECT_TRUE(take_forward_signals().empty());
  reset_stop_signals_for_tests();
  EXPECT_EQ(stop_signal_count(), 0);
}

}  // namespace
}  // namespace dd::launch
