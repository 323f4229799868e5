// Tests of the reasoning across ranks: the real hangs of fixtures/logs/h100x4_hangs (4x H100, PyTorch 2.11)
// name the rank the recorder saw do it; the synthetic scenarios of fixtures/logs/fr (make_fr_fixtures.py)
// cover sizes, a rank that went on past the desync, missing dumps, a matched hang, a healthy run; and the
// node summaries, published as JSON and merged, give the same analysis as all dumps in one place.
#include "logs/fr/fr_analysis.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

namespace dd::logs {
namespace {

using nlohmann::json;

std::vector<FlightRecord> load_dir(const std::string& dir) {
  std::vector<FlightRecord> out;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto r = read_flight_record_file(f);
    EXPECT_TRUE(r.ok()) << f;
    if (r) out.push_back(*r);
  }
  return out;
}

FrAnalysis real(const std::string& c) {
  return analyze_flight_records(load_dir(std::string(DD_FIXTURE_DIR) + "/logs/h100x4_hangs/" + c + "/fr"));
}
FrAnalysis synth(const std::string& c) {
  return analyze_flight_records(load_dir(std::string(DD_FIXTURE_DIR) + "/logs/fr/" + c));
}

TEST(FrAnalysis, RealDesyncByOpNamesTheOddRank) {
  FrAnalysis a = real("desync_op");
  EXPECT_EQ(a.ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(a.missing.empty());
  EXPECT_TRUE(a.unfinished);
  ASSERT_EQ(a.culprits.size(), 1u);
  const FrCulprit& c = a.culprits[0];
  EXPECT_EQ(c.kind, "desync");
  EXPECT_EQ(c.ranks, std::vector<int>{3});
  EXPECT_EQ(c.pg_name, "0");
  EXPECT_EQ(c.seq, 7);
  EXPECT_EQ(c.did.op, "broadcast");
  EXPECT_EQ(c.expected.op, "all_reduce");
  EXPECT_EQ(c.waiting, (std::vector<int>{0, 1, 2}));
  ASSERT_TRUE(c.has_where);
  EXPECT_EQ(frames_text(c.where.frames),
            "broadcast (site-packages/torch/distributed/distributed_c10d.py:2968) <- <module> "
            "(tools/device/hang_worker.py:69)");
  ASSERT_EQ(a.groups.size(), 1u);
  EXPECT_EQ(a.groups[0].frontier, 7);
  EXPECT_EQ(a.groups[0].mismatch.sides[0].ranks, (std::vector<int>{0, 1, 2}));
}

TEST(FrAnalysis, RealSubgroupDesyncNamesTheRankInTheOtherGroup) {
  FrAnalysis a = real("desync_pg");
  ASSERT_EQ(a.culprits.size(), 1u);
  const FrCulprit& c = a.culprits[0];
  EXPECT_EQ(c.kind, "pg_desync");
  EXPECT_EQ(c.ranks, std::vector<int>{0});
  EXPECT_EQ(c.pg_name, "0");
  EXPECT_EQ(c.seq, 7);
  EXPECT_EQ(c.waiting, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(c.where.pg_name, "1");
  EXPECT_NE(c.detail.find("which rank(s) 1 never entered"), std::string::npos) << c.detail;
}

TEST(FrAnalysis, RealStalledRankIsBehind) {
  for (const char* kase : {"stall_idle", "stall_busy"}) {
    FrAnalysis a = real(kase);
    ASSERT_EQ(a.culprits.size(), 1u) << kase;
    const FrCulprit& c = a.culprits[0];
    EXPECT_EQ(c.kind, "behind") << kase;
    EXPECT_EQ(c.ranks, std::vector<int>{3});
    EXPECT_EQ(c.seq, 7);
    EXPECT_EQ(c.waiting, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(c.where.seq, 6);  // where the recorder last saw it
  }
}

TEST(FrAnalysis, RealDumpsWithoutCollectivesBlameNobody) {
  FrAnalysis a = real("late_init");
  EXPECT_EQ(a.ranks, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(a.groups.empty());
  EXPECT_TRUE(a.culprits.empty());
  EXPECT_FALSE(a.unfinished);
}

TEST(FrAnalysis, SyntheticScenarios) {
  FrAnalysis size = synth("desync_size");
  ASSERT_EQ(size.culprits.size(), 1u);
  EXPECT_EQ(size.culprits[0].kind, "size_mismatch");
  EXPECT_EQ(size.culprits[0].ranks, std::vector<int>{2});
  EXPECT_EQ(size.culprits[0].seq, 5);
  EXPECT_EQ(size.culprits[0].did.sizes, "in [[4,128]] out [[16,128]]");

  FrAnalysis ahead = synth("desync_op");  // rank 3 completed its broadcast at 13 and went on to 14
  ASSERT_EQ(ahead.culprits.size(), 1u);
  EXPECT_EQ(ahead.culprits[0].ranks, std::vector<int>{3});
  EXPECT_EQ(ahead.groups[0].ahead, std::vector<int>{3});
  EXPECT_EQ(ahead.groups[0].waiting, (std::vector<int>{0, 1, 2}));

  FrAnalysis pg = synth("pg_desync");  // rank 3 in tp=[2,3] while 0-2 wait in the world group
  ASSERT_EQ(pg.culprits.size(), 1u);
  EXPECT_EQ(pg.culprits[0].kind, "pg_desync");
  EXPECT_EQ(pg.culprits[0].ranks, std::vector<int>{3});

  FrAnalysis late = synth("late_rank");
  ASSERT_EQ(late.culprits.size(), 1u);
  EXPECT_EQ(late.culprits[0].kind, "behind");
  EXPECT_EQ(late.culprits[0].ranks, std::vector<int>{0});

  FrAnalysis missing = synth("missing_rank");
  EXPECT_EQ(missing.missing, std::vector<int>{0});
  ASSERT_EQ(missing.culprits.size(), 1u);
  EXPECT_EQ(missing.culprits[0].kind, "missing_dump");
  EXPECT_EQ(missing.culprits[0].ranks, std::vector<int>{0});

  FrAnalysis stuck = synth("stuck");
  ASSERT_EQ(stuck.culprits.size(), 1u);
  EXPECT_EQ(stuck.culprits[0].kind, "stuck");
  EXPECT_EQ(stuck.culprits[0].ranks, (std::vector<int>{0, 1, 2, 3}));

  FrAnalysis ok = synth("healthy_pypickle");
  EXPECT_TRUE(ok.culprits.empty());
  EXPECT_FALSE(ok.unfinished);
  EXPECT_EQ(ok.entries, 80);
}

// Four ranks that each completed seqs 0-2 of the world group; at seq 1 every rank's signature is sig(rank).
FrSummary completed_world(const std::function<FrSignature(int)>& sig) {
  FrSummary s;
  for (int r = 0; r < 4; ++r) {
    FrRankSummary rs;
    rs.rank = r;
    FrPgTrack t;
    t.pg_name = "0";
    t.pg_desc = "default_pg";
    t.members = {0, 1, 2, 3};
    t.issued = t.completed = 2;
    t.sigs = {{"all_reduce", "in [[8]] out [[8]]", "Float"}, sig(r)};
    t.runs = {{0, 1, 0}, {1, 1, 1}, {2, 1, 0}};
    rs.groups.push_back(t);
    s.ranks.push_back(rs);
  }
  return s;
}

TEST(FrAnalysis, UnevenGatherAndScatterAreNotMismatches) {
  auto gather = [](int r) {  // PyTorch's uneven all_gather: own input size, the same list of outputs
    return FrSignature{"all_gather", fmt::format("in [[{}]] out [[1],[2],[3],[4]]", r + 1), "Float"};
  };
  EXPECT_TRUE(analyze_fr_summary(completed_world(gather)).culprits.empty());
  auto scatter = [](int r) {
    return FrSignature{"reduce_scatter", fmt::format("in [[1],[2],[3],[4]] out [[{}]]", r + 1), "Float"};
  };
  EXPECT_TRUE(analyze_fr_summary(completed_world(scatter)).culprits.empty());
  auto twice = [](int r) {  // the recorded fault: rank 3 gathers twice the elements into its outputs
    return FrSignature{"all_gather",
                       r == 3 ? "in [[2]] out [[2],[2],[2],[2]]" : "in [[1]] out [[1],[1],[1],[1]]", "Float"};
  };
  FrAnalysis a = analyze_fr_summary(completed_world(twice));
  ASSERT_EQ(a.culprits.size(), 1u);
  EXPECT_EQ(a.culprits[0].kind, "size_mismatch");
  EXPECT_EQ(a.culprits[0].ranks, std::vector<int>{3});
  EXPECT_EQ(a.culprits[0].seq, 1);
  EXPECT_FALSE(a.unfinished);
}

TEST(FrAnalysis, TieGoesToTheRankThatWentFurther) {
  std::vector<FlightRecord> two = load_dir(std::string(DD_FIXTURE_DIR) + "/logs/fr/desync_op");
  two.erase(two.begin() + 1, two.begin() + 3);  // ranks 0 and 3: one against one
  FrAnalysis a = analyze_flight_records(two);
  ASSERT_EQ(a.culprits.size(), 1u);
  EXPECT_EQ(a.culprits[0].ranks, std::vector<int>{3});
  EXPECT_FALSE(a.groups[0].mismatch.ambiguous);
}

TEST(FrAnalysis, MergedNodeSummariesGiveTheSameAnswer) {
  for (const char* kase : {"desync_op", "desync_pg", "stall_idle"}) {
    auto recs = load_dir(std::string(DD_FIXTURE_DIR) + "/logs/h100x4_hangs/" + kase + "/fr");
    std::vector<FrSummary> nodes;
    for (size_t n = 0; n < 2; ++n) {  // node n holds ranks 2n and 2n+1, publishes JSON text
      FrSummary s = summarize_flight_records({recs[2 * n], recs[2 * n + 1]});
      std::string wire = fr_summary_to_json(s).dump();
      EXPECT_LT(wire.size(), 8000u) << kase;
      auto back = fr_summary_from_json(json::parse(wire));
      ASSERT_TRUE(back.ok()) << back.error().message();
      EXPECT_EQ(*back, s);
      nodes.push_back(*back);
    }
    FrAnalysis merged = analyze_fr_summary(merge_fr_summaries(nodes));
    EXPECT_EQ(fr_analysis_json(merged), fr_analysis_json(analyze_flight_records(recs))) << kase;
  }
}

TEST(FrAnalysis, UntrustedSummariesAreErrors) {
  EXPECT_FALSE(fr_summary_from_json(json::array()).ok());
  EXPECT_FALSE(fr_summary_from_json({{"fr_summary", 1}, {"ranks", 3}, {"errors", json::array()}}).ok());
  json bad_run = {{"fr_summary", 1},
                  {"errors", json::array()},
                  {"ranks",
                   {{{"rank", 0},
                     {"source", ""},
                     {"version", ""},
                     {"comm", ""},
                     {"warnings", json::array()},
                     {"groups",
                      {{{"pg", "0"},
                        {"desc", ""},
                        {"members", {0}},
                        {"issued", 1},
                        {"completed", 0},
                        {"sigs", json::array()},
                        {"runs", {{1, 1, 5}}},
                        {"detail", json::array()}}}}}}}};
  auto r = fr_summary_from_json(bad_run);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("out of range"), std::string::npos);
}

TEST(FrAnalysis, RankListAndFrames) {
  EXPECT_EQ(rank_list({3, 0, 1, 2, 7, 9, 10}), "0-3,7,9-10");
  EXPECT_EQ(rank_list({}), "");
  EXPECT_EQ(frames_text({{"f", "a.py", 1}, {"g", "b.py", 2}}, 1), "f (a.py:1)");
}

}  // namespace
}  // namespace dd::logs
