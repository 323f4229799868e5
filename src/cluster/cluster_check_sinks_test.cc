// What the multi-node check says while it runs goes through the sinks cli/ gives (ClusterCheckSinks): the
// token's warnings, the master's notice and the command for the other nodes; nothing is written to stderr
// by cluster/ or the store it serves (issue 42 part 5). A by-hand node rank 0 with no second node: the run
// ends at its 1 s deadline.
#include <gtest/gtest.h>

#include <vector>

#include "cluster/cluster_check.h"

namespace dd::cluster {
namespace {

struct Heard {
  std::vector<ProgressLine> progress, leader;
  std::vector<std::string> pasted;
  std::string stderr_text;
};

// Runs node rank 0 of a 2-node check on loopback with `token` (none: it makes one), collecting what it says.
// terminal: what cli/ says of its stderr (ClusterCheckSinks::paste_on_terminal).
Heard run_master(const std::string& token, bool terminal = false) {
  CheckArgs args;
  args.cluster.nnodes = 2;
  args.cluster.node_rank = 0;
  args.cluster.master = "127.0.0.1:0";
  args.cluster.token = token;
  args.cluster.timeout_s = 1;
  Heard h;
  ClusterCheckSinks sinks{[&](const ProgressLine& l) { h.progress.push_back(l); },
                          [&](const ProgressLine& l) { h.leader.push_back(l); },
                          {},
                          [&](const std::string& text) { h.pasted.push_back(text); },
                          terminal};
  ::testing::internal::CaptureStderr();
  auto plan = plan_cluster_check(args, EnvMap{});
  if (plan) (void)run_cluster_check(args, *plan, probe::NodeFacts{}, sinks);
  h.stderr_text = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(plan.ok()) << plan.error().message();
  return h;
}

bool said(const std::vector<ProgressLine>& lines, const std::string& needle) {
  for (const auto& l : lines)
    if (l.text.find(needle) != std::string::npos) return true;
  return false;
}

TEST(ClusterCheckSinks, TokenWarningsGoToTheProgressSink) {
  const Heard h = run_master("x");
  EXPECT_EQ(h.stderr_text, "");
  EXPECT_TRUE(said(h.progress, "--token is visible to every user of this machine"));
  EXPECT_TRUE(said(h.progress, "is only 1 character: easy to guess"));
  EXPECT_TRUE(h.pasted.empty()) << "a token the user gave is never shown";
}

TEST(ClusterCheckSinks, MasterNoticeAndCommandGoThroughTheirSinks) {
  const Heard h = run_master("");
  EXPECT_EQ(h.stderr_text, "");
  ASSERT_FALSE(h.leader.empty());
  EXPECT_EQ(h.leader[0].text, "master of a 2-node check listening on 127.0.0.1:0 (--deadline 1 s).");
  ASSERT_EQ(h.pasted.size(), 1u);
  EXPECT_NE(h.pasted[0].find("Run on every other node (node rank 1 .. 1;"), std::string::npos) << h.pasted[0];
  EXPECT_NE(h.pasted[0].find(" distdoctor check --nnodes 2 --master 127.0.0.1:0 --node-rank R\n\n"),
            std::string::npos)
      << h.pasted[0];
}

// Whether the command lands on a terminal is cli/'s to say (cluster/ asks no isatty): a generated token is
// printed in it only then, else fetched from a file only this user can read.
TEST(ClusterCheckSinks, ATerminalIsCliToSay) {
  const Heard on_terminal = run_master("", true);
  ASSERT_EQ(on_terminal.pasted.size(), 1u);
  EXPECT_EQ(on_terminal.pasted[0].find("ssh "), std::string::npos) << on_terminal.pasted[0];
  EXPECT_NE(on_terminal.pasted[0].find("DISTDOCTOR_TOKEN="), std::string::npos) << on_terminal.pasted[0];
  const Heard to_file = run_master("", false);
  ASSERT_EQ(to_file.pasted.size(), 1u);
  EXPECT_NE(to_file.pasted[0].find("\"$(ssh "), std::string::npos) << to_file.pasted[0];
}

}  // namespace
}  // namespace dd::cluster
