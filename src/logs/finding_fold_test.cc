// Tests of fold_same_failure: one failure, one FAIL. A known error leads the stop of its rank, two views of
// one hang are one finding, launch's diagnosis of its failed rank folds into it; findings of another rank are
// never folded, and torchrun's "root cause" is said as the first rank to exit when the root is another rank.
#include "logs/finding_fold.h"

#include <gtest/gtest.h>

namespace dd::logs {
namespace {

using report::Finding;
using report::Severity;

Finding fail(const char* id, int rank, std::string title = "") {
  return {.id = id,
          .severity = Severity::fail,
          .title = title.empty() ? id : title,
          .evidence = {"e"},
          .rank = rank};
}

size_t fails(const std::vector<Finding>& v) {
  size_t n = 0;
  for (const auto& f : v) n += f.severity == Severity::fail;
  return n;
}

TEST(FindingFold, KnownErrorLeadsTheStopOfItsRank) {
  std::vector<Finding> v = {fail("logs.rank.stopped_first", 1, "rank 1 stopped first: exited with code 1"),
                            fail("cuda.invalid_device_ordinal", -1)};
  fold_same_failure(v, Catalogue::builtin());
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].id, "cuda.invalid_device_ordinal");
  EXPECT_EQ(v[0].severity, Severity::fail);
  EXPECT_EQ(v[0].evidence.back(), "also logs.rank.stopped_first: rank 1 stopped first: exited with code 1");
  EXPECT_EQ(v[1].severity, Severity::info);
  EXPECT_EQ(v[1].rank, 1);  // the culprit stays on the folded finding
  EXPECT_EQ(v[1].consequence_of, "cuda.invalid_device_ordinal");
  EXPECT_EQ(v[1].evidence.back(), "same failure as cuda.invalid_device_ordinal: cuda.invalid_device_ordinal");
}

TEST(FindingFold, AnotherRanksFailureStaysItsOwn) {
  std::vector<Finding> v = {fail("cuda.out_of_memory", 1), fail("logs.rank.stopped_first", 2),
                            fail("cuda.out_of_memory", 3)};
  fold_same_failure(v, Catalogue::builtin());
  EXPECT_EQ(fails(v), 3u);
  EXPECT_EQ(v[0].id, "cuda.out_of_memory");
  for (const auto& f : v) EXPECT_TRUE(f.consequence_of.empty()) << f.id;
}

TEST(FindingFold, TwoViewsOfOneHang) {
  std::vector<Finding> v = {fail("logs.hang.late", 3), fail("logs.fr.behind", 3), fail("logs.fr.desync", 1)};
  fold_same_failure(v, Catalogue::builtin());
  EXPECT_EQ(v[0].severity, Severity::fail);
  EXPECT_EQ(v[1].consequence_of, "logs.hang.late");
  EXPECT_EQ(v[2].severity, Severity::fail);  // rank 1: another failure
}

TEST(FindingFold, LaunchDiagnosisFoldsIntoTheFailedRank) {
  Finding root = fail("launch.rank.failed", 1, "rank 1 ran out of GPU memory");
  root.fix = "Reduce the batch. (cuda.out_of_memory; the full log: run/0/node0.rank1.log)";
  std::vector<Finding> v = {root, fail("cuda.out_of_memory", 1), fail("cuda.out_of_memory", -1),
                            fail("nccl.remote_closed", 1)};
  fold_same_failure(v, Catalogue::builtin());
  EXPECT_EQ(fails(v), 2u);  // the remote close is not the diagnosis launch named
  EXPECT_EQ(v[1].consequence_of, "launch.rank.failed");
  EXPECT_EQ(v[2].consequence_of, "launch.rank.failed");
  EXPECT_EQ(v[3].severity, Severity::fail);
}

TEST(FindingFold, TorchrunsRootCauseIsTheFirstToExit) {
  Finding summary{
      .id = "logs.torchrun.failures",
      .severity = Severity::info,
      .title = "torchrun reports 4 failed worker(s); root cause: rank 0 (local_rank 0) exitcode -6",
      .consequence_of = "logs.hang.late"};
  std::vector<Finding> v = {fail("logs.hang.late", 3), summary};
  fold_same_failure(v, Catalogue::builtin());
  EXPECT_EQ(v[1].title,
            "torchrun reports 4 failed worker(s); the first to exit (torchrun's \"root cause\"): rank 0 "
            "(local_rank 0) exitcode -6");
  v = {fail("logs.rank.stopped_first", 0), summary};  // the same rank: its words stand
  fold_same_failure(v, Catalogue::builtin());
  EXPECT_EQ(v[1].title, summary.title);
}

}  // namespace
}  // namespace dd::logs
