// signal_name.h: names from numbers and back, unknown ones said as such.
#include "common/signal_name.h"

#include <gtest/gtest.h>

#include <csignal>

namespace dd {
namespace {

TEST(SignalName, NamesAndNumbers) {
  EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
  EXPECT_EQ(signal_abbrev(SIGTERM), "SIGTERM");
  EXPECT_EQ(signal_name(0), "signal 0");
  EXPECT_EQ(signal_name(77), "signal 77");
  EXPECT_EQ(signal_abbrev(-9), "");
  EXPECT_EQ(signal_number("SIGINT"), SIGINT);
  EXPECT_EQ(signal_number("TERM"), SIGTERM);
  EXPECT_EQ(signal_number("SIG"), 0);
  EXPECT_EQ(signal_number("SIGNOPE"), 0);
  EXPECT_EQ(signal_number(""), 0);
}

}  // namespace
}  // namespace dd
