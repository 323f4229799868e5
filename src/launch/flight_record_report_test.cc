// launch.job.mismatch (and launch.job.straggler from what the live check saw) on the real exit dumps of
// fixtures/launch/h100x4_exit_dumps (4x H100, PyTorch 2.11): a job whose rank 3 all_gathered twice the
// elements at seq 8 ended well and is warned about, with the digests split over two nodes as launch publishes
// them; PyTorch's uneven all_gather stays clean; a failed job is not looked at for it.
#include <gtest/gtest.h>

#include "launch/report_test_util.h"
#include "logs/fr/fr_summary.h"

namespace dd::launch {
namespace {

// Two nodes of two ranks, every worker exited 0; each node's digest of its own ranks' exit dumps.
AttemptRecord clean_two_nodes(const std::string& kase) {
  AttemptRecord a;
  a.duration_s = 11;
  for (int n = 0; n < 2; ++n) {
    NodeRecord node;
    node.node_rank = n;
    std::vector<logs::FlightRecord> recs;
    for (int r = 2 * n; r < 2 * n + 2; ++r) {
      node.ranks.push_back(rank_rec(r, r - 2 * n, n));
      const std::string path = std::string(DD_FIXTURE_DIR) + "/launch/h100x4_exit_dumps/" + kase +
                               "/exit_rank" + std::to_string(r);
      auto rec = logs::read_flight_record_file(path);
      EXPECT_TRUE(rec.ok()) << path;
      if (!rec) continue;
      rec->rank = r;
      recs.push_back(*rec);
      node.ranks.back().fr_dump = path;
    }
    node.flight_recorder = logs::fr_summary_to_json(logs::summarize_flight_records(recs));
    a.nodes.push_back(node);
  }
  return a;
}

TEST(CompletedMismatch, RealDesyncBySizeIsAWarning) {
  const auto r = build_launch_report({clean_two_nodes("desync_size")});
  EXPECT_NE(find_id(r, "launch.job.ok"), nullptr);
  const auto* m = find_id(r, "launch.job.mismatch");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->severity, report::Severity::warn);
  EXPECT_EQ(m->rank, 3);
  EXPECT_NE(m->title.find(
                "rank 3 called all_gather of 2,097,152 float32 (8 MiB) into 8,388,608 at seq 8 of group 0 "
                "(default_pg) where ranks 0-2 called all_gather of 1,048,576 float32 (4 MiB) into 4,194,304"),
            std::string::npos)
      << m->title;
  EXPECT_EQ(launch_exit_code(clean_two_nodes("desync_size")), 0) << "the job's own exit code stays";
}

TEST(CompletedMismatch, UnevenAllGatherIsClean) {
  const auto r = build_launch_report({clean_two_nodes("uneven_gather")});
  EXPECT_EQ(find_id(r, "launch.job.mismatch"), nullptr);
  EXPECT_EQ(r.findings.size(), 1u);
}

TEST(CompletedMismatch, OnlyForAJobThatEndedWell) {
  AttemptRecord a = clean_two_nodes("desync_size");
  a.stop.cause = StopCause::interrupted;
  const auto r = build_launch_report({a});
  EXPECT_EQ(find_id(r, "launch.job.mismatch"), nullptr);
}

// A job that hung after the live check had named a straggler: the report keeps what it saw (the exit dumps
// are not there), and the record carries it through attempt.json.
TEST(LiveStraggler, WhatTheLiveCheckSawIsInTheReportOfAJobThatDidNotEndWell) {
  AttemptRecord a = clean_two_nodes("uneven_gather");
  a.stop.cause = StopCause::interrupted;
  a.nodes[1].stragglers_seen = {
      {.at = "13:02:11", .rank = 2, .text = "rank 2 arrives last at 97% of 64 ..."}};
  nlohmann::json j = a.nodes[1];
  const NodeRecord back = j.get<NodeRecord>();
  ASSERT_EQ(back.stragglers_seen.size(), 1u);
  EXPECT_EQ(back.stragglers_seen[0].rank, 2);
  EXPECT_EQ(back.stragglers_seen[0].at, "13:02:11");
  const auto r = build_launch_report({a});
  const auto* f = find_id(r, "launch.job.straggler");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 2);
  EXPECT_EQ(f->title, "while the job ran: rank 2 arrives last at 97% of 64 ...");
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_EQ(f->evidence[0],
            "seen while the job ran, 13:02:11 on node 1: rank 2 arrives last at 97% of 64 ...");
  a.nodes[1].stragglers_seen.clear();
  const auto none = build_launch_report({a});
  EXPECT_EQ(find_id(none, "launch.job.straggler"), nullptr) << "nothing seen, nothing said";
}

}  // namespace
}  // namespace dd::launch
