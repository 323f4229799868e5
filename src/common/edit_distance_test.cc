// edit_distance.h: insertions, deletions, substitutions and swaps of neighbours each cost one.
#include "common/edit_distance.h"

#include <gtest/gtest.h>

namespace dd {
namespace {

TEST(EditDistance, CountsEachKindOfEditOnce) {
  EXPECT_EQ(edit_distance("check", "check"), 0u);
  EXPECT_EQ(edit_distance("chek", "check"), 1u);    // one letter left out
  EXPECT_EQ(edit_distance("checkk", "check"), 1u);  // one letter too many
  EXPECT_EQ(edit_distance("chuck", "check"), 1u);   // one letter wrong
  EXPECT_EQ(edit_distance("chekc", "check"), 1u);   // two neighbours swapped
  EXPECT_EQ(edit_distance("colectives", "collectives"), 1u);
  EXPECT_EQ(edit_distance("gpu.nvml_misng", "gpu.nvml_missing"), 2u);
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);  // optimal string alignment: no edit of a swapped pair
}

TEST(EditDistance, EmptyWordsCostTheirLength) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("", "logs"), 4u);
  EXPECT_EQ(edit_distance("bench", ""), 5u);
}

TEST(EditDistance, IsSymmetric) {
  for (auto [a, b] : {std::pair{"launch", "lunch"}, {"explain", "xeplain"}, {"--nnodes", "--node-rank"}})
    EXPECT_EQ(edit_distance(a, b), edit_distance(b, a)) << a << " / " << b;
}

TEST(EditDistance, StopsCountingPastTheCap) {
  EXPECT_EQ(edit_distance("abcdefgh", "zyxwvuts", 2), 3u);
  EXPECT_EQ(edit_distance("a", "abcdefghij", 2), 3u);  // the length difference alone is past the cap
  EXPECT_EQ(edit_distance("chek", "check", 2), 1u);    // under the cap: the exact distance
  EXPECT_EQ(edit_distance("abcdefgh", "zyxwvuts"), 8u);
}

}  // namespace
}  // namespace dd
