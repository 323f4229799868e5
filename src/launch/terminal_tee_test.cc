// terminal_tee: the prefix of a rank's lines on the terminal and which ranks each --tee shows.
#include "launch/terminal_tee.h"

#include <gtest/gtest.h>

namespace dd::launch {
namespace {

TEST(TerminalTee, PrefixNamesTheGlobalRank) {
  EXPECT_EQ(rank_prefix(0), "[rank0]: ");
  EXPECT_EQ(rank_prefix(13), "[rank13]: ");
  EXPECT_EQ(companion_prefix("scheduler"), "[scheduler]: ");
}

TEST(TerminalTee, DefaultShowsEveryRank) {
  EXPECT_EQ(kTeeDefault, "all");
  for (int r : {0, 1, 7, 1023}) EXPECT_TRUE(tee_shows(kTeeDefault, r)) << r;
  EXPECT_TRUE(tee_shows_companion(kTeeDefault));
}

TEST(TerminalTee, ARankShowsOnlyThatRank) {
  EXPECT_TRUE(tee_shows("0", 0));
  EXPECT_FALSE(tee_shows("0", 1));
  EXPECT_TRUE(tee_shows("12", 12));
  EXPECT_FALSE(tee_shows("12", 1));
  EXPECT_FALSE(tee_shows("1x", 1));  // not a number: no rank
  EXPECT_FALSE(tee_shows("", 0));
  EXPECT_FALSE(tee_shows_companion("0"));
}

TEST(TerminalTee, NoneShowsNothing) {
  EXPECT_FALSE(tee_shows("none", 0));
  EXPECT_FALSE(tee_shows_companion("none"));
}

}  // namespace
}  // namespace dd::launch
