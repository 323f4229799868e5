// `logs` on the real recordings of fixtures/logs/h100x4_hangs (a 4-rank PyTorch 2.11 job on 4x H100 under
// torchrun, one fault on one rank per case): the first finding names the rank that caused it (and for hangs
// the collective and SeqNum); no warn/fail finding blames a rank that only followed; the exit-0 runs raise
// no alarm.
#include <gtest/gtest.h>

#include <vector>

#include "logs/analyze.h"

namespace dd::logs {
namespace {

const std::string kH100Hangs = std::string(DD_FIXTURE_DIR) + "/logs/h100x4_hangs/";

std::vector<report::Finding> run_logs(const std::vector<std::string>& files) {
  LogsOptions opt;
  for (const auto& f : files) opt.paths.push_back(kH100Hangs + f);
  opt.jobs = 1;
  LogsResult r = analyze_logs(opt, Catalogue::builtin());
  EXPECT_TRUE(r.input_errors.empty());
  return logs_findings(r, Catalogue::builtin());
}

struct HangCase {
  const char* name;
  const char* id;               // the first finding's id
  int rank;                     // the rank it names
  std::vector<const char*> in;  // text its title must hold
};

class H100x4Hangs : public ::testing::TestWithParam<HangCase> {};

TEST_P(H100x4Hangs, FirstFindingNamesTheCulprit) {
  const HangCase& c = GetParam();
  auto fs = run_logs({std::string(c.name) + "/torchrun.log"});
  ASSERT_FALSE(fs.empty()) << c.name;
  const report::Finding& f = fs.front();
  EXPECT_EQ(f.id, c.id) << c.name << ": " << f.title;
  EXPECT_EQ(f.severity, report::Severity::fail) << c.name << ": " << f.title;
  EXPECT_EQ(f.rank, c.rank) << c.name << ": " << f.title;
  for (const char* t : c.in)
    EXPECT_NE(f.title.find(t), std::string::npos) << c.name << ": '" << t << "' in " << f.title;
  // Every other warn/fail finding that names one rank names the same one: the followers are never blamed.
  for (const auto& g : fs) {
    if (g.severity >= report::Severity::warn && g.rank >= 0) {
      EXPECT_EQ(g.rank, c.rank) << c.name << ": " << g.id << ": " << g.title;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Real, H100x4Hangs,
    ::testing::Values(
        HangCase{"desync_op",
                 "logs.hang.desync",
                 3,
                 {"rank 3 called BROADCAST", "ranks 0, 1, 2 called ALLREDUCE", "SeqNum 7", "default_pg"}},
        HangCase{"desync_pg",
                 "logs.hang.missing",
                 0,
                 {"rank 0 never issued ALLREDUCE SeqNum=7", "ranks 1, 2, 3", "last enqueued work was 6"}},
        HangCase{
            "stall_idle",
            "logs.hang.late",
            3,
            {"rank 3 was late to ALLREDUCE SeqNum=7", "ranks 0, 1, 2", "enqueued only up to 6", "SeqNum=10"}},
        HangCase{"stall_busy",
                 "logs.hang.late",
                 3,
                 {"rank 3 was late to ALLREDUCE SeqNum=7", "ranks 0, 1, 2", "enqueued only up to 6"}},
        HangCase{"sigkill", "logs.rank.stopped_first", 2, {"rank 2 stopped first", "SIGKILL"}},
        // rank 1 printed nothing: only torchrun's summary knows it (and NCCL_DEBUG=WARN: no Init COMPLETE
        // lines, whose absence must raise no alarm)
        HangCase{"silent_kill", "logs.rank.stopped_first", 1, {"rank 1 stopped first", "SIGKILL"}},
        HangCase{"exception",
                 "logs.rank.stopped_first",
                 1,
                 {"rank 1", "RuntimeError: No backend type associated with device type cpu"}},
        HangCase{"dataloader",
                 "logs.rank.stopped_first",
                 1,
                 {"rank 1", "RuntimeError: DataLoader worker (pid 1523) is killed by signal: Killed."}},
        HangCase{"rdzv_unresolvable",
                 "pytorch.store_name_resolution",
                 -1,
                 {"no-such-master.invalid", "29511", "Temporary failure in name resolution"}},
        HangCase{"rdzv_port_in_use", "pytorch.store_port_in_use", -1, {"port 29512", "already in use"}}),
    [](const ::testing::TestParamInfo<HangCase>& i) { return std::string(i.param.name); });

// silent_kill: besides rank 1's stop, only consequences (info): the peers' "connection closed", torchrun's
// summary, and no "never reached Init COMPLETE" for processes that printed no INFO line at all.
TEST(H100x4HangsSilentKill, EverythingElseIsAConsequence) {
  auto fs = run_logs({"silent_kill/torchrun.log"});
  ASSERT_FALSE(fs.empty());
  for (size_t i = 1; i < fs.size(); ++i)
    EXPECT_LT(fs[i].severity, report::Severity::warn) << fs[i].id << ": " << fs[i].title;
  for (const auto& f : fs) EXPECT_NE(f.id, "logs.init.incomplete") << f.title;
}

// The job finished (exit 0): nothing above info. late_init says that ranks 0-2 were asked for a dump (the
// recorder's on-demand trigger) while rank 3 had no process group yet; the torchrun log does not name rank 3.
TEST(H100x4HangsExit0, NoAlarm) {
  for (const std::vector<std::string>& files :
       {std::vector<std::string>{"desync_size/torchrun.log"},
        {"late_init/torchrun.log"},
        {"rdzv_nnodes_mismatch/node0.log", "rdzv_nnodes_mismatch/node1.log"}})
    for (const auto& f : run_logs(files))
      EXPECT_LT(f.severity, report::Severity::warn) << files[0] << ": " << f.id << ": " << f.title;
  auto late = run_logs({"late_init/torchrun.log"});
  ASSERT_FALSE(late.empty());
  EXPECT_EQ(late.front().id, "logs.pytorch.dump_requested");
  EXPECT_NE(late.front().title.find("ranks 0, 1, 2 prepared one"), std::string::npos) << late.front().title;
}

}  // namespace
}  // namespace dd::logs
