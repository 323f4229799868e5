// The rank that is different, in launch's analysis: a rank that exited 0 while the others wait, a rank with
// another NCCL library or an NCCL variable of its own (named as the hang's cause, and as launch.rank.differs
// in any run), the attempt record saved beside the logs and read back, and a hang report a person reads in
// 20 seconds (30 lines for 4 ranks, no empty fields, the rest in details).
#include <gtest/gtest.h>

#include <sstream>

#include "common/test_files.h"
#include "launch/attempt_file.h"
#include "launch/failure_report.h"
#include "launch/hang_culprit.h"
#include "launch/report_test_util.h"
#include "report/report.h"

namespace dd::launch {
namespace {

const std::string kStacks = std::string(DD_FIXTURE_DIR) + "/launch/h100x4_stacks/";

// Four ranks on one node, all running and silent for 12 s, as a hang snapshot holds them.
AttemptRecord four_waiting() {
  AttemptRecord a;
  a.stop.cause = StopCause::hang;
  a.stop.detail = "no output from any rank for 10 s (--hang-timeout)";
  NodeRecord n;
  n.node_rank = 0;
  n.host = "gpu-a";
  for (int r = 0; r < 4; ++r) {
    RankRecord rr = rank_rec(r, r, 0);
    rr.running = true;
    rr.exit_code = -1;
    rr.end_s = -1;
    rr.proc_state = "S (sleeping)";
    rr.silent_s = 12;
    rr.cpu_window_s = 0.01;
    rr.tail = {"step 2 done in 3.1 ms"};
    rr.identity_read = true;
    rr.identity = {{"NCCL library", "site-packages/nvidia/nccl/lib/libnccl.so.2"}};
    n.ranks.push_back(rr);
  }
  a.nodes.push_back(n);
  return a;
}

TEST(DifferentRank, ARankThatExitedZeroWhileTheOthersWaitIsTheCulprit) {
  AttemptRecord a = four_waiting();
  RankRecord& r1 = a.nodes[0].ranks[1];
  r1.running = false, r1.exit_code = 0, r1.end_s = 8.4;
  r1.tail = {"step 2 done in 3.0 ms", "rank 1 leaves early"};
  HangCulprit c = hang_culprit(a);
  EXPECT_EQ(c.method, "exit");
  EXPECT_EQ(c.ranks, std::vector<int>({1}));
  EXPECT_NE(c.why.find("rank 1 exited with status 0 at 8.4 s while ranks 0,2,3 went on"), std::string::npos)
      << c.why;
  report::Report rep = build_launch_report({a});
  ASSERT_FALSE(rep.findings.empty());
  EXPECT_EQ(rep.findings.front().id, "launch.hang");
  EXPECT_EQ(rep.findings.front().rank, 1);
  EXPECT_NE(rep.findings.front().fix.find("same number of steps"), std::string::npos);
}

TEST(DifferentRank, OfTwoRanksTheOneThatLeftIsTheCulprit) {
  AttemptRecord a = four_waiting();
  a.nodes[0].ranks.resize(2);
  RankRecord& r1 = a.nodes[0].ranks[1];
  r1.running = false, r1.exit_code = 0, r1.end_s = 8.4;
  EXPECT_EQ(hang_culprit(a).ranks, std::vector<int>({1}));
}

TEST(DifferentRank, AnotherNcclOnOneOfTwoRanksLeadsAFailureInNccl) {
  AttemptRecord a = four_waiting();
  a.nodes[0].ranks.resize(2);
  a.nodes[0].env = {{"PATH", "/usr/bin"}};  // the launcher's: no LD_PRELOAD
  for (auto& r : a.nodes[0].ranks) r.running = false, r.end_s = 7;
  RankRecord& r0 = a.nodes[0].ranks[0];
  r0.exit_code = 1;
  r0.traceback =
      "Traceback (most recent call last):\ntorch.distributed.DistBackendError: NCCL error in: "
      "NCCLUtils.cpp:93, invalid usage";
  RankRecord& r1 = a.nodes[0].ranks[1];
  r1.stopped_by_us = true, r1.signal = 15;
  r1.identity = {{"NCCL library", "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3 (2.28.3)"},
                 {"LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3"}};
  a.stop = {};
  a.stop.cause = StopCause::worker_failed;
  a.stop.rank = 0;
  a.stop.root = r0;
  report::Report rep = build_launch_report({a});
  ASSERT_GE(rep.findings.size(), 2u);
  EXPECT_EQ(rep.findings[0].id, "launch.rank.differs");
  EXPECT_EQ(rep.findings[0].severity, report::Severity::fail);
  EXPECT_EQ(rep.findings[0].rank, 1);
  EXPECT_NE(
      rep.findings[0].title.find("rank 1 has LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3 where "
                                 "rank 0 leaves it unset"),
      std::string::npos)
      << rep.findings[0].title;
  EXPECT_EQ(rep.findings[1].id, "launch.rank.failed");
  int differs = 0;
  for (const auto& f : rep.findings) differs += f.id == "launch.rank.differs";
  EXPECT_EQ(differs, 1);
}

TEST(DifferentRank, RanksDoneBesideOneStuckRankAreNotBlamed) {
  AttemptRecord a = four_waiting();
  for (int r : {0, 1, 2}) {
    RankRecord& x = a.nodes[0].ranks[size_t(r)];
    x.running = false, x.exit_code = 0, x.end_s = 9;
  }
  EXPECT_NE(hang_culprit(a).method, "exit") << "three left and one stays: the one that stays is the odd one";
}

TEST(DifferentRank, AnotherNcclLibraryOnOneRankIsTheCauseOfAHang) {
  AttemptRecord a = four_waiting();
  a.nodes[0].ranks[1].identity = {
      {"NCCL library", "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3 (2.28.3+cuda12.9)"},
      {"LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3"}};
  HangCulprit c = hang_culprit(a);
  EXPECT_EQ(c.method, "identity");
  EXPECT_EQ(c.ranks, std::vector<int>({1}));
  EXPECT_NE(
      c.why.find("rank 1 loads NCCL /usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3 (2.28.3+cuda12.9) where "
                 "ranks 0,2,3 load site-packages/nvidia/nccl/lib/libnccl.so.2"),
      std::string::npos)
      << c.why;
  report::Report rep = build_launch_report({a});
  const report::Finding* d = find_id(rep, "launch.rank.differs");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->severity, report::Severity::warn);
  EXPECT_EQ(d->rank, 1);
}

TEST(DifferentRank, AnNcclVariableOfItsOwnIsWarnedInAHealthyRunToo) {
  AttemptRecord a = four_waiting();
  a.stop = {};
  for (auto& r : a.nodes[0].ranks) r.running = false, r.exit_code = 0, r.end_s = 20;
  a.nodes[0].ranks[3].identity["NCCL_PROTO"] = "LL";
  report::Report rep = build_launch_report({a});
  EXPECT_EQ(rep.findings.front().id, "launch.job.ok");
  const report::Finding* d = find_id(rep, "launch.rank.differs");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->title, "rank 3 has NCCL_PROTO=LL where ranks 0-2 leave it unset");
  a.nodes[0].ranks[3].identity.erase("NCCL_PROTO");
  const report::Report clean = build_launch_report({a});
  EXPECT_EQ(find_id(clean, "launch.rank.differs"), nullptr) << "all the same: clean";
}

TEST(DifferentRank, TheHangReportFitsThirtyLinesAndHasNoEmptyField) {
  AttemptRecord a = four_waiting();
  a.nodes[0].ranks[0].stack = test_files::slurp(kStacks + "stall_busy.rank0.txt");
  a.nodes[0].ranks[3].stack = test_files::slurp(kStacks + "stall_busy.rank3.txt");
  a.nodes[0].ranks[1].stack = a.nodes[0].ranks[2].stack = a.nodes[0].ranks[0].stack;
  for (auto& r : a.nodes[0].ranks) r.stack_source = "faulthandler";
  ASSERT_FALSE(a.nodes[0].ranks[3].stack.empty());
  report::Report rep = build_launch_report({a});
  rep.notes.push_back("job j: 1 node(s), node rank 0 of them is this one (gpu-a)");
  std::ostringstream text;
  report::render_text(rep, text, {});
  std::string line;
  int lines = 0;
  for (std::istringstream in(text.str()); std::getline(in, line);) {
    ++lines;
    EXPECT_EQ(line.find(": ,"), std::string::npos) << line;
    EXPECT_EQ(line.find("behind , ahead"), std::string::npos) << line;
    EXPECT_EQ(line.find("<no Python frame>"), std::string::npos) << line;
    EXPECT_FALSE(line.size() > 10 && line.substr(line.size() - 2) == ": ") << line;
  }
  EXPECT_LE(lines, 30) << text.str();
  EXPECT_NE(text.str().find("more lines: --verbose"), std::string::npos) << text.str();
  std::ostringstream verbose;
  report::render_text(rep, verbose, {.verbose = true});
  EXPECT_NE(verbose.str().find("rank 2 (local rank 2) on node 0 (gpu-a): state S (sleeping)"),
            std::string::npos)
      << "every rank's state in the details";
}

TEST(DifferentRank, TheAttemptRecordIsSavedBesideTheLogsAndReadBack) {
  test_files::ScratchDir d;
  AttemptRecord a = four_waiting();
  a.attempt = 0;
  a.nodes[0].ranks[3].identity["NCCL_PROTO"] = "LL";
  std::filesystem::create_directories(d.path / "0");
  ASSERT_EQ(save_attempt_record(d.path.string(), a), "");
  const std::string text = test_files::slurp(d / "0/attempt.json");
  auto back = parse_attempt_record(text);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(build_launch_report({*back}).findings.front().title,
            build_launch_report({a}).findings.front().title);
  EXPECT_EQ(back->nodes[0].ranks[3].identity.at("NCCL_PROTO"), "LL");
  EXPECT_FALSE(parse_attempt_record("{\"stop\": {}}").ok()) << "another program's attempt.json";
  EXPECT_FALSE(parse_attempt_record("[[[[").ok());
  EXPECT_FALSE(parse_attempt_record("{\"distdoctor_launch_attempt\": 1, \"record\": {\"nodes\": 7}}").ok());
  EXPECT_NE(save_attempt_record((d.path / "missing").string(), a), "") << "an unwritable place says why";
}

}  // namespace
}  // namespace dd::launch
