// Tests of root-cause-first ordering: the earliest fail cause leads, consequence kinds after it (lowered,
// marked), a consequence kind earlier than the cause stays a cause, no lowering without a fail cause.
#include "logs/finding_order.h"

#include <gtest/gtest.h>

#include "logs/catalogue.h"

namespace dd::logs {
namespace {

using report::Severity;

TimedFinding tf(const char* id, Severity s, int64_t t, bool cat = true) {
  return {
      .finding = {.id = id, .severity = s, .title = id, .evidence = {"e"}}, .time = t, .from_catalogue = cat};
}

std::vector<std::string> ids(const std::vector<report::Finding>& v) {
  std::vector<std::string> out;
  for (const auto& f : v) out.push_back(f.id);
  return out;
}

// The ordering reads each catalogue entry's role from data/known_errors.json: no list of its own.
TEST(LogsFindingOrder, TheCatalogueSaysWhichLinesAreConsequences) {
  size_t consequences = 0;
  for (const CatalogueEntry& e : Catalogue::builtin().entries()) {
    EXPECT_EQ(is_consequence_kind(e.id), e.has_role(CatalogueRole::consequence)) << e.id;
    consequences += e.has_role(CatalogueRole::consequence);
  }
  EXPECT_GE(consequences, 18u);
  EXPECT_TRUE(is_consequence_kind("logs.init.incomplete"));  // a rule's, not the catalogue's
  EXPECT_FALSE(is_consequence_kind("cuda.out_of_memory"));
}

TEST(LogsFindingOrder, FirstCauseLeadsConsequencesFollow) {
  auto out = root_cause_first(
      {tf("pytorch.watchdog_timeout", Severity::fail, 500), tf("nccl.remote_closed", Severity::fail, 200),
       tf("cuda.out_of_memory", Severity::fail, 300), tf("nccl.duplicate_gpu", Severity::fail, 100),
       tf("nccl.shm_retry", Severity::warn, 50)},
      true);
  EXPECT_EQ(ids(out), (std::vector<std::string>{"nccl.duplicate_gpu", "cuda.out_of_memory", "nccl.shm_retry",
                                                "nccl.remote_closed", "pytorch.watchdog_timeout"}));
  EXPECT_EQ(out[0].severity, Severity::fail);
  EXPECT_EQ(out[3].severity, Severity::info);
  EXPECT_EQ(out[3].evidence.front(), "e");  // the evidence keeps its order
  EXPECT_EQ(out[3].evidence.back(), "consequence of nccl.duplicate_gpu: nccl.duplicate_gpu");
  EXPECT_NE(out[4].title.find("(consequence of nccl.duplicate_gpu)"), std::string::npos);
}

TEST(LogsFindingOrder, EarlierConsequenceKindStaysACause) {
  auto out = root_cause_first({tf("logs.rank.stopped_first", Severity::fail, 100, false),
                               tf("nccl.remote_closed", Severity::fail, 50)},
                              true);
  EXPECT_EQ(ids(out), (std::vector<std::string>{"logs.rank.stopped_first", "nccl.remote_closed"}));
  EXPECT_EQ(out[1].severity, Severity::fail);
}

TEST(LogsFindingOrder, NoFailCauseNoLowering) {
  auto out = root_cause_first(
      {tf("logs.init.incomplete", Severity::fail, -1, false), tf("nccl.shm_retry", Severity::warn, 10)},
      true);
  EXPECT_EQ(ids(out), (std::vector<std::string>{"logs.init.incomplete", "nccl.shm_retry"}));
  EXPECT_EQ(out[0].severity, Severity::fail);
  // match_text mode reorders only.
  out = root_cause_first(
      {tf("nccl.invalid_usage", Severity::fail, -1), tf("nccl.duplicate_gpu", Severity::fail, -1)}, false);
  EXPECT_EQ(ids(out), (std::vector<std::string>{"nccl.duplicate_gpu", "nccl.invalid_usage"}));
  EXPECT_EQ(out[1].severity, Severity::fail);
  EXPECT_EQ(out[1].evidence.size(), 1u);
}

}  // namespace
}  // namespace dd::logs
