// Tests of the launcher conventions' table (launcher_convention.h): each convention sets only the names it
// declares, the env probe keeps every one of them (`check` inside such a job sees who started it), launch
// leaves them out of its comparisons, names are unique across conventions, and an opt-in convention is off
// until its flag.
#include "launch/launcher_convention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "probe/env_probe.h"

namespace dd::launch {
namespace {

JobLayout job_of_two_nodes() {
  JobLayout job;
  job.nodes = {{0, "n0", "198.18.0.1", 2, {7001, 7002}}, {1, "n1", "198.18.0.2", 2, {7101, 7102}}};
  job.master_addr = "198.18.0.1";
  job.master_port = 29500;
  job.job_id = "conv";
  return job;
}

bool declares(const LauncherConvention& c, const std::string& name) {
  return std::find(c.own_vars.begin(), c.own_vars.end(), name) != c.own_vars.end();
}

TEST(LauncherConvention, EachSetsOnlyTheNamesItDeclares) {
  const JobLayout job = job_of_two_nodes();
  WorkerEnvOptions opt;
  opt.bind_gpu = true;
  opt.gpu_ids = {"0", "1"};
  for (const LauncherConvention* c : launcher_conventions()) {
    const ConventionInput in{job, 1, 1, opt};
    const EnvPairs env = c->worker_env(in);
    EXPECT_FALSE(env.empty()) << c->name;
    for (const auto& [k, v] : env) EXPECT_TRUE(declares(*c, k)) << c->name << " sets " << k;
    if (!c->companion) continue;
    for (const auto& [k, v] : c->companion->env({job, 0, 0, opt}))
      EXPECT_TRUE(declares(*c, k)) << c->name << "'s " << c->companion->role << " sets " << k;
  }
}

TEST(LauncherConvention, TheEnvProbeKeepsEveryLauncherName) {
  for (const LauncherConvention* c : launcher_conventions())
    for (std::string_view name : c->own_vars) {
      EXPECT_TRUE(probe::env_name_wanted(std::string(name))) << c->name << ": " << name;
      EXPECT_TRUE(is_launcher_var(std::string(name))) << c->name << ": " << name;
    }
}

TEST(LauncherConvention, NamesAreUniqueAndNoNameIsSetTwice) {
  std::set<std::string_view> names;
  for (const LauncherConvention* c : launcher_conventions()) {
    EXPECT_TRUE(names.insert(c->name).second) << c->name;
    EXPECT_NE(c->worker_env, nullptr) << c->name;
  }
  WorkerEnvOptions opt;
  for (const LauncherConvention* c : launcher_conventions())
    if (!c->flag.empty()) opt.opted_in.push_back(std::string(c->name));  // every convention at once
  std::set<std::string> set;
  for (const auto& [k, v] : worker_env(job_of_two_nodes(), 0, 1, opt)) EXPECT_TRUE(set.insert(k).second) << k;
}

TEST(LauncherConvention, AnOptInConventionIsOffUntilItsFlag) {
  for (const LauncherConvention* c : launcher_conventions()) {
    if (c->flag.empty()) continue;
    EXPECT_FALSE(convention_on(*c, {})) << c->name;
    EXPECT_TRUE(convention_on(*c, {.opted_in = {std::string(c->name)}})) << c->name;
  }
  EXPECT_EQ(companion_of({}), nullptr);  // no companion process without --mindspore
  JobSettings ms;
  ms.conventions = {"mindspore"};
  const CompanionProcess* c = companion_of({.opted_in = opted_in(ms)});
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->role, "scheduler");
}

// cli/launch.cc adds each opt-in convention's flag from the table: a new one needs no line there.
TEST(LauncherConvention, AnOptInConventionSaysItsFlag) {
  for (const LauncherConvention* c : launcher_conventions()) {
    if (c->flag.empty()) continue;
    EXPECT_EQ(c->flag.substr(0, 2), "--") << c->name;
    EXPECT_FALSE(c->flag_help.empty()) << c->name;
  }
  JobSettings ms;
  ms.conventions = {"mindspore"};
  const JobSettings back = nlohmann::json(ms).get<JobSettings>();  // as node rank 0 publishes it
  EXPECT_EQ(back.conventions, ms.conventions);
}

}  // namespace
}  // namespace dd::launch
