// did_you_mean.h: close mistypes get the word they meant, ties all of theirs, garbage and short words
// nothing.
#include "common/did_you_mean.h"

#include <gtest/gtest.h>

namespace dd {
namespace {

const std::vector<std::string> kCommands = {"check", "facts", "explain", "logs", "bench", "launch"};

TEST(DidYouMean, AMistypedWordGetsTheOneItMeant) {
  EXPECT_EQ(closest_words("chek", kCommands), std::vector<std::string>{"check"});
  EXPECT_EQ(closest_words("lunch", kCommands), std::vector<std::string>{"launch"});
  EXPECT_EQ(closest_words("exlpain", kCommands), std::vector<std::string>{"explain"});  // swapped letters
  EXPECT_EQ(closest_words("CHECK", kCommands), std::vector<std::string>{"check"});      // case folded
  EXPECT_EQ(closest_words("colectives", {"collectives", "cuda-init", "nccl-lib"}),
            std::vector<std::string>{"collectives"});
  EXPECT_EQ(closest_words("gpu.nvml_misng", {"gpu.none", "gpu.nvml_missing", "gpu.busy"}),
            std::vector<std::string>{"gpu.nvml_missing"});
}

TEST(DidYouMean, GarbageShortWordsAndExactMatchesGetNothing) {
  EXPECT_TRUE(closest_words("xyzzy", kCommands).empty());
  EXPECT_TRUE(closest_words("hello world", kCommands).empty());
  EXPECT_TRUE(closest_words("lo", kCommands).empty());                             // too short to guess from
  EXPECT_EQ(closest_words("chck", {"check"}), std::vector<std::string>{"check"});  // 1 edit on 4 letters
  EXPECT_TRUE(closest_words("chk", {"check"}).empty());    // 2 edits on 3 letters: more than a third
  EXPECT_TRUE(closest_words("check", kCommands).empty());  // nothing was mistyped
  EXPECT_TRUE(closest_words("", kCommands).empty());
  EXPECT_TRUE(closest_words("gpu.nvml", {"gpu.nvml_missing"}).empty());  // 8 edits away
}

TEST(DidYouMean, TiesAreAllShownClosestFirstAndAtMostThree) {
  const std::vector<std::string> ids = {"net.a_one", "net.b_one", "net.c_one", "net.d_one", "net.ab_one"};
  EXPECT_EQ(closest_words("net.x_one", ids),
            (std::vector<std::string>{"net.a_one", "net.b_one", "net.c_one"}));
  EXPECT_EQ(closest_words("net.x_one", ids, 2), (std::vector<std::string>{"net.a_one", "net.b_one"}));
  EXPECT_EQ(closest_words("net.ab_on", ids), std::vector<std::string>{"net.ab_one"});  // 1 edit beats 2
  EXPECT_EQ(closest_words("chek", {"check", "check"}), std::vector<std::string>{"check"});
}

TEST(DidYouMean, SaysTheWordsAsOneQuestion) {
  EXPECT_EQ(did_you_mean({}), "");
  EXPECT_EQ(did_you_mean({"check"}), "did you mean check?");
  EXPECT_EQ(did_you_mean({"a", "b"}), "did you mean a or b?");
  EXPECT_EQ(did_you_mean({"a", "b", "c"}), "did you mean a, b or c?");
}

}  // namespace
}  // namespace dd
