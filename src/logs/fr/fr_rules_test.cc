// Tests of the Flight Recorder findings: `distdoctor logs DIR` on the real 4x H100 hang folders (torchrun
// log, stacks and dumps side by side) names the odd rank with its stack; every logs.fr id has its explain
// text; a clean record, dumps without collectives and an unreadable dump have their own findings; a hang in
// the first collective says that none completed.
#include "logs/fr/fr_rules.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace dd::logs {
namespace {

const std::string kFrReal = std::string(DD_FIXTURE_DIR) + "/logs/h100x4_hangs/";

bool fr_documented(const std::string& id) {
  for (const auto& d : logs_finding_docs())
    if (id == d.id) return true;
  return false;
}

std::vector<report::Finding> logs_on(const std::vector<std::string>& paths) {
  LogsOptions opt;
  opt.paths = paths;
  opt.jobs = 1;
  LogsResult r = analyze_logs(opt, Catalogue::builtin());
  auto fs = logs_findings(r, Catalogue::builtin());
  for (const auto& f : fs) EXPECT_TRUE(fr_documented(f.id) || Catalogue::builtin().find(f.id)) << f.id;
  return fs;
}

const report::Finding* fr_find(const std::vector<report::Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

std::string joined_text(const report::Finding& f) {
  std::string s = f.title;
  for (const auto& e : f.evidence) s += "\n" + e;
  return s;
}

TEST(FrRules, LogsOnTheRealDesyncFolderNamesRank3AndItsBroadcast) {
  auto fs = logs_on({kFrReal + "desync_op"});
  const report::Finding* f = fr_find(fs, "logs.fr.desync");
  ASSERT_NE(f, nullptr);
  // The watchdog lines name the same failure (logs.hang.desync, rank 3): one FAIL, the dumps' view folded
  // into it (issue 40) with its culprit and evidence kept.
  const report::Finding* root = fr_find(fs, "logs.hang.desync");
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->severity, report::Severity::fail);
  EXPECT_EQ(root->rank, 3);
  EXPECT_EQ(f->severity, report::Severity::info);
  EXPECT_EQ(f->consequence_of, "logs.hang.desync");
  EXPECT_EQ(f->rank, 3);
  EXPECT_EQ(f->title,
            "rank 3 called broadcast where the others called all_reduce (collective #7 of process group 0 "
            "(default_pg)) (same failure as logs.hang.desync)");
  std::string all = joined_text(*f);
  EXPECT_NE(all.find("seq 7: ranks 0-2 all_reduce of 1,048,576 float32 (4 MiB)"), std::string::npos) << all;
  EXPECT_NE(all.find("<module> (tools/device/hang_worker.py:69)"), std::string::npos) << all;
  EXPECT_NE(all.find("rank 0 issued 8 completed 6"), std::string::npos) << all;
}

TEST(FrRules, LogsOnRealSubgroupAndStallFolders) {
  auto pg = logs_on({kFrReal + "desync_pg/fr"});
  const report::Finding* f = fr_find(pg, "logs.fr.pg_desync");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 0);
  EXPECT_NE(f->title.find("wait for it in all_reduce #7"), std::string::npos) << f->title;
  auto stall = logs_on({kFrReal + "stall_idle/fr"});
  f = fr_find(stall, "logs.fr.behind");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 3);
  EXPECT_EQ(f->title,
            "rank 3 never reached collective #7 of process group 0 (default_pg) that ranks 0-2 wait in");
  EXPECT_EQ(fr_find(stall, "logs.fr.complete"), nullptr);
  auto init = logs_on({kFrReal + "late_init/fr"});
  ASSERT_NE(fr_find(init, "logs.fr.no_collectives"), nullptr);
}

TEST(FrRules, CleanRecordAndUnreadableDump) {
  auto ok = logs_on({std::string(DD_FIXTURE_DIR) + "/logs/fr/healthy_pypickle"});
  const report::Finding* f = fr_find(ok, "logs.fr.complete");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->evidence, std::vector<std::string>{"process group 0 (default_pg): last completed #20"});
  auto dir = std::filesystem::temp_directory_path() / ("dd_fr_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ifstream in(kFrReal + "desync_op/fr/fr_trace_1", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ofstream((dir / "fr_trace_1").string(), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  std::ofstream((dir / "fr_trace_2").string(), std::ios::binary) << std::string(
      "\x80\x02"
      "cos\nsystem\n.",
      14);
  auto bad = logs_on({dir.string()});
  f = fr_find(bad, "logs.fr.unreadable");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->evidence.size(), 2u);
  EXPECT_NE(f->evidence[0].find("truncated"), std::string::npos) << f->evidence[0];
  EXPECT_NE(f->evidence[1].find("refused"), std::string::npos) << f->evidence[1];
  std::filesystem::remove_all(dir);
}

// Two ranks of group 0: rank 0 issued its first collective (#0 all_reduce) and it never completed; rank 1
// issued it too when both_issued, else nothing at all.
FrSummary first_collective_hung(bool both_issued) {
  FrSummary s;
  for (int r = 0; r < 2; ++r) {
    FrRankSummary rs;
    rs.rank = r;
    FrPgTrack t;
    t.pg_name = "0";
    t.pg_desc = "default_pg";
    t.members = {0, 1};
    if (r == 0 || both_issued) {
      t.issued = 0;
      t.sigs = {{"all_reduce", "in [[8]] out [[8]]", "Float"}};
      t.runs = {{0, 1, 0}};
      FrOpBrief op{.pg_name = "0", .seq = 0, .sig = t.sigs[0], .state = "started"};
      t.detail = {op};
      rs.has_last = true;
      rs.last = op;
    }
    rs.groups.push_back(t);
    s.ranks.push_back(rs);
  }
  return s;
}

// When the first collective hangs nothing completed: the findings say so, and never "seq -1".
TEST(FrRules, FirstCollectiveHungSaysNoneCompleted) {
  auto behind = fr_findings(analyze_fr_summary(first_collective_hung(false)));
  const report::Finding* f = fr_find(behind, "logs.fr.behind");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->title,
            "rank 1 never reached the first collective of process group 0 (default_pg) (#0 all_reduce) that "
            "rank 0 wait in; no collective completed");
  const auto no_minus_one = [](const std::string& text) {
    for (const char* raw : {"seq -1", "#-1", "issued -1", "completed -1"})
      if (text.find(raw) != std::string::npos) return false;
    return true;
  };
  const std::string text = joined_text(*f);
  EXPECT_TRUE(no_minus_one(text)) << text;
  EXPECT_NE(text.find("they recorded no collective; no collective of group 0 completed: the first, #0 "
                      "all_reduce of 8 float32 (32 B), is where the ranks stopped"),
            std::string::npos)
      << text;
  auto stuck = fr_findings(analyze_fr_summary(first_collective_hung(true)));
  f = fr_find(stuck, "logs.fr.stuck");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("inside the first collective of process group 0 (default_pg) (#0 all_reduce)"),
            std::string::npos)
      << f->title;
  EXPECT_TRUE(no_minus_one(joined_text(*f))) << joined_text(*f);
}

TEST(FrRules, EveryIdHasItsDoc) {
  for (const auto& d : fr_finding_docs()) {
    EXPECT_TRUE(std::string(d.id).rfind("logs.fr.", 0) == 0) << d.id;
    EXPECT_TRUE(fr_documented(d.id));
  }
  EXPECT_EQ(fr_finding_docs().size(), 11u);
}

}  // namespace
}  // namespace dd::logs
