// `logs` on issue 37's "rank that is different" failures, real recordings first
// (fixtures/logs/h200x2_different, 2x H200 under torchrun; fixtures/logs/same_place, edited copies of real
// recordings): the first finding names the odd rank (its own NCCL_PROTO), the rank late to init, the process
// that holds the GPU an OOM rank needed, or says plainly that every rank stopped at the same place and where
// the Flight Recorder dumps are; the ranks that only followed are never blamed and the consequences are never
// at fail.
#include <gtest/gtest.h>

#include <vector>

#include "common/test_files.h"
#include "logs/analyze.h"

namespace dd::logs {
namespace {

const std::string kDrFix = std::string(DD_FIXTURE_DIR) + "/logs/";

std::vector<report::Finding> dr_run_logs(const std::string& path) {
  LogsOptions opt;
  opt.paths = {kDrFix + path};
  opt.jobs = 1;
  LogsResult r = analyze_logs(opt, Catalogue::builtin());
  EXPECT_TRUE(r.input_errors.empty());
  return logs_findings(r, Catalogue::builtin());
}

bool dr_has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// No finding after the first is at fail, and every warn/fail finding that names one rank names `rank`.
void dr_expect_only_the_culprit(const std::vector<report::Finding>& fs, int rank) {
  for (size_t i = 0; i < fs.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(fs[i].severity, report::Severity::fail) << fs[i].id << ": " << fs[i].title;
    }
    if (fs[i].severity >= report::Severity::warn && fs[i].rank >= 0) {
      EXPECT_EQ(fs[i].rank, rank) << fs[i].id << ": " << fs[i].title;
    }
  }
}

TEST(LogsDifferentRank, OwnNcclProtoLeadsBeforeTheWatchdog) {
  auto fs = dr_run_logs("h200x2_different/proto_ll/torchrun.log");
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].id, "logs.rank.env_differs") << fs[0].title;
  EXPECT_EQ(fs[0].severity, report::Severity::fail);
  EXPECT_EQ(fs[0].rank, 1);
  EXPECT_TRUE(dr_has(fs[0].title, "rank 1 has NCCL_PROTO=LL where rank 0 ")) << fs[0].title;
  EXPECT_TRUE(dr_has(fs[0].title, "ALLREDUCE SeqNum=1")) << fs[0].title;
  dr_expect_only_the_culprit(fs, 1);
}

TEST(LogsDifferentRank, LateInitNamesTheRankThatNeverStartedIt) {
  auto fs = dr_run_logs("h200x2_different/late_init/torchrun.log");
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].id, "logs.init.late_rank") << fs[0].title;
  EXPECT_EQ(fs[0].rank, 1) << fs[0].title;
  EXPECT_TRUE(dr_has(fs[0].title, "rank 1 never started NCCL init while rank 0 waited in it")) << fs[0].title;
  dr_expect_only_the_culprit(fs, 1);
}

TEST(LogsDifferentRank, OomHeadlineNamesTheProcessHoldingTheGpu) {
  auto fs = dr_run_logs("h200x2_different/oom/torchrun.log");
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].id, "cuda.out_of_memory") << fs[0].title;
  EXPECT_EQ(fs[0].rank, 1);
  EXPECT_TRUE(dr_has(fs[0].title, "process 996, not part of this job, holds 131.79 GiB of GPU 1"))
      << fs[0].title;
}

TEST(LogsDifferentRank, ARankThatLeftIsTheOneThatNeverReachedTheCollective) {
  // Rank 1 left with sys.exit(0); its own prints have no "[rank1]:" prefix, only NCCL's lines say it is
  // rank 1.
  auto fs = dr_run_logs("h200x2_different/exit0");
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].id, "logs.hang.missing") << fs[0].title;
  EXPECT_EQ(fs[0].rank, 1) << fs[0].title;
  dr_expect_only_the_culprit(fs, 1);
}

TEST(LogsDifferentRank, ARankWithP2pAndShmOffIsTheOneNamed) {
  auto fs = dr_run_logs("h200x2_different/p2p_off/torchrun.log");
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].rank, 1) << fs[0].id << ": " << fs[0].title;
  bool differs = false;
  for (const auto& f : fs)
    differs |= f.id == "logs.rank.env_differs" && dr_has(f.title, "rank 1 has NCCL_P2P_DISABLE=1");
  EXPECT_TRUE(differs);
}

TEST(LogsDifferentRank, TwoNcclVersionsOnTwoRanksBlameNeither) {
  auto fs = dr_run_logs("h200x2_different/other_nccl/torchrun.log");
  for (const auto& f : fs)
    if (f.id == "logs.rank.env_differs") {
      EXPECT_EQ(f.rank, -1) << "two ranks, two versions: the logs cannot say which is the odd one";
      EXPECT_TRUE(dr_has(f.title, "ranks disagree on the NCCL library")) << f.title;
    }
}

// Both shapes: 2 ranks (the job killed from outside) and 4 ranks (each aborted by its watchdog, torchrun's
// ChildFailedError): the lead says the log cannot tell, where the dumps are and how to read them.
TEST(HangSamePlace, EveryRankAtTheSameCollectivePointsToTheDumps) {
  for (const char* path : {"same_place/x2/torchrun.log", "same_place/x4/torchrun.log"}) {
    auto fs = dr_run_logs(path);
    ASSERT_FALSE(fs.empty()) << path;
    EXPECT_EQ(fs[0].id, "logs.hang.same_place") << path << ": " << fs[0].title;
    EXPECT_TRUE(dr_has(fs[0].title, "cannot tell which rank is different")) << fs[0].title;
    EXPECT_TRUE(dr_has(fs[0].title, "/tmp/nccl_trace_rank_<rank>")) << fs[0].title;
    EXPECT_TRUE(dr_has(fs[0].title, "`distdoctor logs /tmp/nccl_trace_rank_*`")) << fs[0].title;
    for (size_t i = 1; i < fs.size(); ++i)
      EXPECT_LT(fs[i].severity, report::Severity::fail) << path << ": " << fs[i].id << ": " << fs[i].title;
  }
}

// The dump's file when PyTorch printed it (TORCH_CPP_LOG_LEVEL=INFO): that prefix, not the default.
TEST(HangSamePlace, PrintedDumpPathIsTheOneToRead) {
  std::string text;
  for (int r = 0; r < 2; ++r)
    text += "[rank" + std::to_string(r) + "]:[E1128 09:18:52.89 ProcessGroupNCCL.cpp:689] [Rank " +
            std::to_string(r) +
            "] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, "
            "NumelIn=8, NumelOut=8, Timeout(ms)=10000) ran for 10034 milliseconds before timing out.\n";
  text +=
      "[rank0]:[I1128 09:18:58.1 FlightRecorder.cpp:120] Finished writing NCCLPG debug info to "
      "/scratch/job7/fr/trace_0\n";
  FileResult f = scan_buffer("c.log", text, Catalogue::builtin(), ScanOptions{});
  LogsResult r = merge_results({std::move(f)}, Catalogue::builtin());
  auto fs = logs_findings(r, Catalogue::builtin());
  ASSERT_FALSE(fs.empty());
  EXPECT_EQ(fs[0].id, "logs.hang.same_place");
  EXPECT_TRUE(dr_has(fs[0].title, "/scratch/job7/fr/trace_<rank>")) << fs[0].title;
  EXPECT_TRUE(dr_has(fs[0].title, "`distdoctor logs /scratch/job7/fr/trace_*`")) << fs[0].title;
}

}  // namespace
}  // namespace dd::logs
