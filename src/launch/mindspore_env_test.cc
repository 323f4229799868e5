// Tests of MindSpore's variables (launch --mindspore): a 2-node x 2-worker job's workers and scheduler, the
// topology timeout, nothing MindSpore-ish without the flag, and the names left out of env comparisons.
#include "launch/mindspore_env.h"

#include <gtest/gtest.h>

#include <map>

namespace dd::launch {
namespace {

JobLayout two_by_two() {
  JobLayout job;
  job.nodes = {{0, "n0", "198.18.0.1", 2, {7001, 7002}}, {1, "n1", "198.18.0.2", 2, {7101, 7102}}};
  job.master_addr = "198.18.0.1";
  job.master_port = 29511;
  job.job_id = "ms";
  return job;
}

std::map<std::string, std::string> ms_vars(const EnvPairs& env) {
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : env) {
    EXPECT_EQ(m.count(k), 0u) << "set twice: " << k;
    m[k] = v;
  }
  return m;
}

TEST(MindSporeEnv, EachWorkerGetsMsrunsNames) {
  MindSporeOptions opt;
  opt.on = true;
  for (int node = 0; node < 2; ++node)
    for (int local = 0; local < 2; ++local) {
      auto e = ms_vars(mindspore_worker_env(two_by_two(), node, local, opt));
      const std::string rank = std::to_string(node * 2 + local);
      SCOPED_TRACE("rank " + rank);
      EXPECT_EQ(e.size(), 8u);
      EXPECT_EQ(e["MS_ROLE"], "MS_WORKER");
      EXPECT_EQ(e["MS_WORKER_NUM"], "4");
      EXPECT_EQ(e["MS_SCHED_HOST"], "198.18.0.1");
      EXPECT_EQ(e["MS_SCHED_PORT"], "29511");
      EXPECT_EQ(e["MS_NODE_ID"], rank);
      EXPECT_EQ(e["RANK_ID"], rank);
      EXPECT_EQ(e["RANK_SIZE"], "4");
      EXPECT_EQ(e["MS_TOPO_TIMEOUT"], "600");
    }
}

TEST(MindSporeEnv, SchedulerAgreesWithTheWorkers) {
  MindSporeOptions opt;
  opt.on = true;
  auto s = ms_vars(mindspore_scheduler_env(two_by_two(), opt));
  EXPECT_EQ(s, (std::map<std::string, std::string>{{"MS_ROLE", "MS_SCHED"},
                                                   {"RANK_ID", "0"},
                                                   {"MS_WORKER_NUM", "4"},
                                                   {"MS_SCHED_HOST", "198.18.0.1"},
                                                   {"MS_SCHED_PORT", "29511"},
                                                   {"RANK_SIZE", "4"},
                                                   {"MS_TOPO_TIMEOUT", "600"}}));
}

TEST(MindSporeEnv, TopologyTimeoutFollowsTheHangTimeoutUnlessTheUserSetsIt) {
  EXPECT_EQ(mindspore_topo_timeout_s(0), 600);
  EXPECT_EQ(mindspore_topo_timeout_s(90), 90);
  EXPECT_EQ(mindspore_topo_timeout_s(2.5), 3);
  MindSporeOptions opt;
  opt.on = true;
  opt.hang_timeout_s = 120;
  EXPECT_EQ(ms_vars(mindspore_worker_env(two_by_two(), 1, 1, opt))["MS_TOPO_TIMEOUT"], "120");
  EXPECT_EQ(ms_vars(mindspore_scheduler_env(two_by_two(), opt))["MS_TOPO_TIMEOUT"], "120");
  opt.user_has_topo_timeout = true;  // the launcher's environment has one: the process inherits it
  EXPECT_EQ(ms_vars(mindspore_worker_env(two_by_two(), 1, 1, opt)).count("MS_TOPO_TIMEOUT"), 0u);
  EXPECT_EQ(ms_vars(mindspore_scheduler_env(two_by_two(), opt)).count("MS_TOPO_TIMEOUT"), 0u);
}

TEST(MindSporeEnv, NothingWithoutTheFlag) {
  const MindSporeOptions off;
  EXPECT_TRUE(mindspore_worker_env(two_by_two(), 1, 0, off).empty());
  EXPECT_TRUE(mindspore_scheduler_env(two_by_two(), off).empty());
  // MS_ROLE in a job that is not MindSpore's would make MindSpore wait for a scheduler that never comes.
  for (const auto& [k, v] : worker_env(two_by_two(), 1, 0, {})) {
    EXPECT_NE(k.rfind("MS_", 0), 0u) << k;
    EXPECT_NE(k, "RANK_ID");
    EXPECT_NE(k, "RANK_SIZE");
  }
}

TEST(MindSporeEnv, NamesAreLauncherVariables) {
  MindSporeOptions opt;
  opt.on = true;
  for (const auto& [k, v] : mindspore_worker_env(two_by_two(), 0, 1, opt))
    EXPECT_TRUE(is_launcher_var(k)) << k;
  for (const auto& [k, v] : mindspore_scheduler_env(two_by_two(), opt)) EXPECT_TRUE(is_launcher_var(k)) << k;
  EXPECT_FALSE(is_launcher_var("MS_NODE_TIMEOUT"));  // the user's own MindSpore settings are still compared
}

}  // namespace
}  // namespace dd::launch
