// report::first_failure and mark_consequence: the one "who failed first" rule.
#include "report/first_failure.h"

#include <gtest/gtest.h>

namespace dd::report {
namespace {

TEST(FirstFailure, EarliestCauseWinsAndConsequencesDoNotLead) {
  EXPECT_FALSE(first_failure({}).has_value());
  // A peer's connection reset (consequence) came first; the rank that died at 20 is the cause.
  std::vector<Failure> v{{.time = 10, .consequence = true}, {.time = 30}, {.time = 20}};
  EXPECT_EQ(first_failure(v), 2u);
  // Equal times keep the caller's order; an unknown time sorts last.
  EXPECT_EQ(first_failure({{.time = -1}, {.time = 5}, {.time = 5}}), 1u);
  EXPECT_EQ(first_failure({{.time = -1}, {.time = -1}}), 0u);
}

TEST(FirstFailure, SeverityBeforeTime) {
  std::vector<Failure> v{{.time = 1, .severity = Severity::warn}, {.time = 9, .severity = Severity::fail}};
  EXPECT_EQ(first_failure(v), 1u);
}

TEST(FirstFailure, OnlyConsequencesLeadWhenTheRuleAllows) {
  std::vector<Failure> v{{.time = 8, .consequence = true}, {.time = 3, .consequence = true}};
  EXPECT_EQ(first_failure(v), 1u);
  EXPECT_FALSE(first_failure(v, {.consequence_may_lead = false}).has_value());
}

TEST(FirstFailure, WindowKeepsALateDeathFromTakingTheCause) {
  // A worker aborted at 0; another died by itself 50 (inside the window of 100): that one is the cause.
  std::vector<Failure> v{{.time = 0, .consequence = true}, {.time = 50}};
  EXPECT_EQ(first_failure(v, {.window = 100}), 1u);
  // The same death 500 later is unrelated: the abort stays the cause.
  v[1].time = 500;
  EXPECT_EQ(first_failure(v, {.window = 100}), 0u);
  EXPECT_EQ(first_failure(v), 1u);  // without a window it would take it
}

TEST(FirstFailure, MarkConsequence) {
  Finding cause{"comm.worker.died", Severity::fail, "rank 2 died (SIGKILL)"};
  Finding f{"comm.error", Severity::fail, "rank 0: remote process exited", {"NCCL WARN x"}};
  mark_consequence(f, cause);
  EXPECT_EQ(f.title, "rank 0: remote process exited (consequence of comm.worker.died)");
  ASSERT_EQ(f.evidence.size(), 2u);
  EXPECT_EQ(f.evidence.back(), "consequence of comm.worker.died: rank 2 died (SIGKILL)");
  EXPECT_EQ(f.severity, Severity::info);
  Finding ok{"x", Severity::ok, "t"};
  mark_consequence(ok, cause, "node-b");
  EXPECT_EQ(ok.severity, Severity::ok);  // never raised
  EXPECT_EQ(ok.title, "t (consequence of node-b)");
}

}  // namespace
}  // namespace dd::report
