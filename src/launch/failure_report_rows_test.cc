// The launch report's rows (failure_report_rows.h): one row per StopCause, and every row (on records that
// stopped that way) and every part (on any record) documents the launch ids it emits (a companion's are its
// convention's; the worker_failed row leads with the rank.differs part's finding when it explains a failure
// in NCCL).
#include "launch/failure_report_rows.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>

#include "launch/report_parts.h"
#include "launch/report_test_util.h"

namespace dd::launch {
namespace {

constexpr StopCause kCauses[] = {StopCause::none,
                                 StopCause::worker_failed,
                                 StopCause::hang,
                                 StopCause::interrupted,
                                 StopCause::node_lost,
                                 StopCause::master_lost,
                                 StopCause::scheduler_failed,
                                 StopCause::cannot_start};

std::vector<AttemptRecord> rr_cases() {
  std::vector<AttemptRecord> cases = {AttemptRecord{}};
  for (auto cause : kCauses) {
    auto a = failed_attempt();
    a.stop.cause = cause;
    cases.push_back(a);
    a.silent_nodes = {1};
    a.nodes[0].log_free_bytes = 0;
    a.nodes[0].strays = {"pid 4242: sleep 300"};
    a.nodes[0].scheduler = rank_rec(0, 0, 0);
    a.nodes[0].scheduler.exit_code = 1;
    cases.push_back(a);
  }
  return cases;
}

std::set<std::string> rr_ids(const std::vector<report::FindingDoc>& docs) {
  std::set<std::string> ids;
  for (const auto& d : docs) ids.insert(d.id);
  return ids;
}

// The launch ids `build` emits over every case (of `cause` only, when given) that `own` does not document.
std::set<std::string> rr_undocumented(LaunchPartFn build, const std::set<std::string>& own,
                                      std::optional<StopCause> cause = std::nullopt) {
  std::set<std::string> out;
  for (const auto& a : rr_cases())
    for (const auto& f : cause&& a.stop.cause != *cause ? std::vector<report::Finding>{} : build(a))
      if (f.id.rfind("launch.", 0) == 0 && !own.count(f.id)) out.insert(f.id);
  return out;
}

TEST(LaunchReportRows, OneRowPerCauseAndEveryIdDocumentedByItsRow) {
  std::set<StopCause> seen;
  for (const auto& row : stop_cause_rows()) EXPECT_TRUE(seen.insert(row.cause).second);
  for (auto cause : kCauses) {
    EXPECT_TRUE(seen.count(cause)) << stop_cause_name(cause);
    EXPECT_EQ(stop_cause_row(cause).cause, cause) << stop_cause_name(cause);
  }
  const std::set<std::string> companion = rr_ids(parts::scheduler_finding_docs());
  for (const auto& row : stop_cause_rows()) {
    std::set<std::string> own = rr_ids(row.docs);
    if (row.cause == StopCause::worker_failed) own.insert("launch.rank.differs");
    if (row.cause == StopCause::scheduler_failed) own = companion;
    EXPECT_EQ(rr_undocumented(row.build, own, row.cause), std::set<std::string>{})
        << stop_cause_name(row.cause);
    for (const auto& a : rr_cases()) EXPECT_FALSE(row.outcome(a).empty());
  }
  for (const LaunchPart* part : all_launch_parts()) {
    const std::set<std::string> own = part->docs.empty() ? companion : rr_ids(part->docs);
    EXPECT_EQ(rr_undocumented(part->build, own), std::set<std::string>{}) << part->name;
  }
}

}  // namespace
}  // namespace dd::launch
