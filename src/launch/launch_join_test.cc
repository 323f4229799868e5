// Tests of the pure parts of the launch rendezvous: the pasted command and the compared environment.
#include "launch/launch_join.h"

#include <gtest/gtest.h>

#include "launch/job_settings.h"

namespace dd::launch {

TEST(LaunchJoin, ShellQuoteLeavesPlainWordsAndQuotesTheRest) {
  EXPECT_EQ(shell_quote("train.py"), "train.py");
  EXPECT_EQ(shell_quote("--lr=0.1"), "--lr=0.1");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
}

TEST(LaunchJoin, PasteCommandCarriesTheTokenInTheEnvironmentNotArgv) {
  LaunchArgs a;
  a.cluster.nnodes = 2;
  a.nproc = "gpu";
  a.command = {"python", "train.py", "--name", "run 1"};
  cluster::ClusterPlan plan;
  probe::NodeFacts facts;
  probe::SelfProcess self;
  self.executable = "tools/bin/distdoctor";
  JoinInput in{a, plan, facts, self, NodeHello{}, JobSettings{}};
  std::string cmd = paste_command(in, "198.18.0.1:40000", "DISTDOCTOR_TOKEN=abc123", 1);
  EXPECT_EQ(cmd.rfind("DISTDOCTOR_TOKEN=abc123 tools/bin/distdoctor launch ", 0), 0u) << cmd;
  EXPECT_EQ(cmd.find("--token "), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("--nnodes 2 --node-rank 1 --master 198.18.0.1:40000 --nproc-per-node gpu"),
            std::string::npos)
      << cmd;
  EXPECT_NE(cmd.find("-- python train.py --name 'run 1'"), std::string::npos) << cmd;
  EXPECT_NE(paste_command(in, "h:1", "t", -1).find("--node-rank R"), std::string::npos);
}

TEST(LaunchJoin, ComparedEnvironmentKeepsJobVariablesAndHidesSecrets) {
  std::map<std::string, std::string> env = {{"NCCL_SOCKET_IFNAME", "eth0"},
                                            {"HOME", "users/x"},
                                            {"RANK", "3"},
                                            {"HF_TOKEN", "hf_secret"},
                                            {"LD_LIBRARY_PATH", "opt/trainenv/lib"},
                                            {"SSH_CLIENT", "1.2.3.4"}};
  auto out = env_for_compare(env);
  EXPECT_EQ(out.count("HOME"), 0u);
  EXPECT_EQ(out.count("SSH_CLIENT"), 0u);
  EXPECT_EQ(out.count("RANK"), 0u) << "launcher variables differ by design";
  EXPECT_EQ(out.at("NCCL_SOCKET_IFNAME"), "eth0");
  EXPECT_EQ(out.at("LD_LIBRARY_PATH"), "opt/trainenv/lib");
  ASSERT_EQ(out.count("HF_TOKEN"), 1u);
  EXPECT_EQ(out.at("HF_TOKEN").find("hf_secret"), std::string::npos);
}

TEST(LaunchJoin, SettingsRoundTripThroughJsonWithoutTheCommand) {
  JobSettings s;
  s.job_id = "j1";
  s.command_digest = command_digest({"python", "x.py"});
  s.max_restarts = 2;
  s.hang_timeout_s = 30;
  s.job_port = 29500;
  s.master_addr = "198.18.0.1";
  s.preflight = false;
  const nlohmann::json j(s);
  EXPECT_FALSE(j.contains("command")) << "the store must never carry a command a node would run";
  JobSettings back = j.get<JobSettings>();
  EXPECT_EQ(back.job_id, "j1");
  EXPECT_EQ(back.command_digest, s.command_digest);
  EXPECT_EQ(back.max_restarts, 2);
  EXPECT_EQ(back.job_port, 29500);
  EXPECT_FALSE(back.preflight);
  NodeHello h;
  h.command_digest = s.command_digest;
  EXPECT_EQ(nlohmann::json(h).get<NodeHello>().command_digest, s.command_digest);
}

TEST(LaunchJoin, CommandDigestTellsWordsApart) {
  const std::string d = command_digest({"python", "train.py"});
  EXPECT_EQ(d.size(), 64u);
  EXPECT_EQ(d, command_digest({"python", "train.py"}));
  EXPECT_NE(d, command_digest({"python train.py"}));
  EXPECT_NE(d, command_digest({"python", "train.py", ""}));
  EXPECT_NE(d, command_digest({"sh", "-c", "touch pwned"}));
  EXPECT_NE(command_digest({}), command_digest({""}));
}

}  // namespace dd::launch
