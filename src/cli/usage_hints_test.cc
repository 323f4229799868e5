// usage_hints.h on distdoctor's own command table: a mistyped command or flag gets the one meant, launch's
// command without "--" gets the line with it, and what CLI11 already says well is left to it.
#include "cli/usage_hints.h"

#include <gtest/gtest.h>

#include "cli/command.h"

namespace dd::cli {
namespace {

// The app as main() builds it.
struct CommandLine {
  CLI::App app{"distdoctor"};
  std::vector<Runner> runners;  // they own what the options write into
  CommandLine() {
    for (const auto& c : commands()) runners.push_back(c.setup(*app.add_subcommand(c.name, c.description)));
  }
  std::string hint(const std::vector<std::string>& words, const std::vector<std::string>& after = {}) {
    TrailingCommand t{!after.empty(), after};
    return usage_hint(app, words, t);
  }
};

TEST(UsageHint, AMistypedCommandGetsTheOneMeant) {
  CommandLine cl;
  EXPECT_EQ(cl.hint({"chek"}), "distdoctor: unknown command \"chek\"; did you mean check?\n");
  EXPECT_EQ(cl.hint({"lunch", "--nproc-per-node", "2"}),
            "distdoctor: unknown command \"lunch\"; did you mean launch?\n");
  EXPECT_EQ(cl.hint({"frobnicate"}),
            "distdoctor: unknown command \"frobnicate\" (the commands: check, facts, explain, logs, bench, "
            "launch)\n");
  EXPECT_EQ(cl.hint({}), "");  // no command at all: CLI11's "A subcommand is required"
}

TEST(UsageHint, AMistypedFlagGetsTheOneMeant) {
  CommandLine cl;
  EXPECT_EQ(cl.hint({"check", "--colectives"}),
            "distdoctor check: unknown flag --colectives; did you mean --collectives?\n");
  EXPECT_EQ(cl.hint({"check", "--engine=glo", "--jsn"}),
            "distdoctor check: unknown flag --jsn; did you mean --json?\n");  // a value is not a flag
  EXPECT_EQ(cl.hint({"bench", "--xyzzy-plugh"}),
            "distdoctor bench: unknown flag --xyzzy-plugh (distdoctor bench --help lists them)\n");
  EXPECT_EQ(cl.hint({"check", "extra"}), "");  // an operand check does not take: CLI11's message
}

TEST(UsageHint, LaunchWithoutTheSeparatorGetsTheLineWithIt) {
  CommandLine cl;
  EXPECT_EQ(cl.hint({"launch", "python3", "train.py"}),
            "distdoctor launch: the command to run goes after --:\n"
            "  distdoctor launch -- python3 train.py\n");
  // Launch's options stay before "--", the command's own flags after it; odd words are quoted.
  EXPECT_EQ(cl.hint({"launch", "--nproc-per-node", "2", "--json", "python3", "train.py", "--lr", "3e-4",
                     "--name", "my run"}),
            "distdoctor launch: the command to run goes after --:\n"
            "  distdoctor launch --nproc-per-node 2 --json -- python3 train.py --lr 3e-4 --name 'my run'\n");
  // Part of the command before "--", part after: all of it after.
  EXPECT_EQ(cl.hint({"launch", "python3"}, {"train.py"}),
            "distdoctor launch: the command to run goes after --:\n"
            "  distdoctor launch -- python3 train.py\n");
}

TEST(UsageHint, LaunchNamesAMistypedFlagBeforeTheCommand) {
  CommandLine cl;
  EXPECT_EQ(cl.hint({"launch", "--nproc-per-nod", "2", "--", "true"}),
            "distdoctor launch: unknown flag --nproc-per-nod; did you mean --nproc-per-node?\n");
  EXPECT_EQ(cl.hint({"launch", "--hang-timout", "60", "python3", "train.py"}),
            "distdoctor launch: unknown flag --hang-timout; did you mean --hang-timeout?\n");
}

TEST(UsageHint, TheSeparatorLineHidesSecrets) {
  CommandLine cl;
  const std::string h = cl.hint({"launch", "--token", "s3cr3t-t0ken-value", "python3", "train.py"});
  EXPECT_EQ(h.find("s3cr3t"), std::string::npos) << h;
  EXPECT_NE(h.find("-- python3 train.py"), std::string::npos) << h;
}

TEST(FlagSuggestions, LongNamesOfTheSubcommandOnly) {
  CommandLine cl;
  const CLI::App* explain = cl.app.get_subcommand("explain");
  EXPECT_EQ(flag_suggestions(*explain, "--lst"), std::vector<std::string>{"--list"});
  EXPECT_TRUE(flag_suggestions(*explain, "--collectives").empty());  // check's, not explain's
  const CLI::App* launch = cl.app.get_subcommand("launch");
  EXPECT_EQ(flag_suggestions(*launch, "--node.rank"), std::vector<std::string>{"--node-rank"});  // one flag
  EXPECT_EQ(flag_suggestions(*launch, "--nproc_per_nod"), std::vector<std::string>{"--nproc_per_node"});
}

}  // namespace
}  // namespace dd::cli
