// command_words.h: flags, their values, unknown flags and the first operand, as CLI11 would read them.
#include "cli/command_words.h"

#include <gtest/gtest.h>

namespace dd::cli {
namespace {

FlagArity launch_arity(const std::string& name) {
  if (name == "--nproc-per-node" || name == "--tee" || name == "--master") return FlagArity::takes_value;
  if (name == "--json" || name == "-v") return FlagArity::flag;
  return FlagArity::unknown;
}

TEST(CommandWords, TheCommandStartsAtTheFirstOperand) {
  const std::vector<std::string> w = {"--nproc-per-node", "2", "--json", "python3", "train.py", "--lr", "3"};
  const CommandWords s = sort_command_words(w, launch_arity);
  EXPECT_EQ(s.first_operand, 3u);                      // "2" is --nproc-per-node's value
  EXPECT_EQ(s.unknown_flags, std::vector<size_t>{5});  // --lr, after the operand
}

TEST(CommandWords, AValueInTheFlagWordTakesNoNextWord) {
  const std::vector<std::string> w = {"--tee=all", "python3"};
  EXPECT_EQ(sort_command_words(w, launch_arity).first_operand, 1u);
  const std::vector<std::string> v = {"--tee", "-1", "x"};  // a value may start with '-'
  EXPECT_EQ(sort_command_words(v, launch_arity).first_operand, 2u);
}

TEST(CommandWords, UnknownFlagsAreNamedAndTakeNothing) {
  const std::vector<std::string> w = {"--nproc_per_node", "2", "-x", "--colectives=1", "-v"};
  const CommandWords s = sort_command_words(w, launch_arity);
  EXPECT_EQ(s.unknown_flags, (std::vector<size_t>{0, 2, 3}));
  EXPECT_EQ(s.first_operand, 1u);  // the unknown flag's value cannot be told from an operand
}

TEST(CommandWords, OperandsThatLookLikeFlags) {
  const std::vector<std::string> w = {"-", "-1", "-.5", "--"};
  const CommandWords s = sort_command_words(w, launch_arity);
  EXPECT_EQ(s.first_operand, 0u);
  EXPECT_TRUE(s.unknown_flags.empty());
  EXPECT_EQ(sort_command_words({}, launch_arity).first_operand, 0u);
  EXPECT_EQ(sort_command_words({"--json"}, launch_arity).first_operand, 1u);  // none: words.size()
}

TEST(CommandWords, FlagNames) {
  EXPECT_EQ(flag_name("--tee=all"), "--tee");
  EXPECT_EQ(flag_name("--json"), "--json");
  EXPECT_EQ(flag_name("-vx"), "-v");
  EXPECT_EQ(flag_name("-"), "");
  EXPECT_EQ(flag_name("--"), "");
  EXPECT_EQ(flag_name("-3"), "");
  EXPECT_EQ(flag_name("train.py"), "");
}

}  // namespace
}  // namespace dd::cli
