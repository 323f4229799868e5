// torchrun_flags.h and the torchrun spellings of check's and launch's flags: they set what distdoctor's own
// spellings set, --master_addr with --master_port is --master, and either alone is refused with the other
// named.
#include "cli/torchrun_flags.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cli/command.h"

namespace dd::cli {
namespace {

TEST(TorchrunMaster, AddressAndPortMakeOneMaster) {
  EXPECT_EQ(torchrun_master("", 0, "").value(), "");  // neither given
  EXPECT_EQ(torchrun_master("198.18.0.1", 29500, "").value(), "198.18.0.1:29500");
  EXPECT_EQ(torchrun_master("fd00::1", 29500, "").value(), "[fd00::1]:29500");
  EXPECT_EQ(torchrun_master("[fd00::1]", 29500, "").value(), "[fd00::1]:29500");
}

TEST(TorchrunMaster, EitherAloneNamesTheOther) {
  auto addr_only = torchrun_master("198.18.0.1", 0, "");
  ASSERT_FALSE(addr_only);
  EXPECT_NE(addr_only.error().message().find("needs --master-port"), std::string::npos);
  auto port_only = torchrun_master("", 29500, "on one node use --job-port");
  ASSERT_FALSE(port_only);
  EXPECT_NE(port_only.error().message().find("needs --master-addr"), std::string::npos);
  EXPECT_NE(port_only.error().message().find("--job-port"), std::string::npos);
}

// distdoctor's command table, parsing one command line.
struct ParsedLine {
  CLI::App app;
  std::vector<Runner> runners;  // they own what the options write into
  std::string error;            // CLI11's, "" when it parsed
  explicit ParsedLine(std::vector<std::string> words) {
    for (const auto& c : commands()) runners.push_back(c.setup(*app.add_subcommand(c.name, c.description)));
    std::reverse(words.begin(), words.end());
    try {
      app.parse(words);
    } catch (const CLI::ParseError& e) {
      error = e.what();
    }
  }
};

TEST(TorchrunSpellings, LaunchAndCheckTakeThemAsTheirOwn) {
  for (const char* sub : {"launch", "check"}) {
    ParsedLine p({sub, "--nproc_per_node", "2", "--nnodes", "2", "--node_rank", "1", "--master_addr",
                  "198.18.0.1", "--master_port", "29400"});
    EXPECT_EQ(p.error, "") << sub;
    const CLI::App* s = p.app.get_subcommand(sub);
    EXPECT_EQ(s->get_option("--nproc-per-node")->as<std::string>(), "2") << sub;
    EXPECT_EQ(s->get_option("--node-rank")->as<int>(), 1) << sub;
  }
  ParsedLine p({"launch", "--max_restarts", "3", "--log_dir", "logs"});
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(p.app.get_subcommand("launch")->get_option("--max-restarts")->as<int>(), 3);
  EXPECT_EQ(p.app.get_subcommand("launch")->get_option("--log-dir")->as<std::string>(), "logs");
}

TEST(TorchrunSpellings, MasterAddrAndPortAreRefusedAloneOrWithMaster) {
  EXPECT_NE(ParsedLine({"launch", "--master_port", "29500"}).error.find("needs --master-addr"),
            std::string::npos);
  EXPECT_NE(ParsedLine({"check", "--master-addr", "198.18.0.1"}).error.find("needs --master-port"),
            std::string::npos);
  EXPECT_NE(
      ParsedLine({"check", "--master", "198.18.0.1:1", "--master_addr", "198.18.0.1", "--master_port", "2"})
          .error.find("excludes"),
      std::string::npos);
}

}  // namespace
}  // namespace dd::cli
