// start_notes: the job id, the attempt's real log folder and each rank's log (one line for many ranks), and
// whose output the terminal shows for each --tee.
#include "launch/start_notes.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace dd::launch {
namespace {

StartInfo two_ranks(const std::string& tee) {
  return StartInfo{.job_id = "j1",
                   .attempt = 0,
                   .node_rank = 0,
                   .nnodes = 1,
                   .attempt_dir = "logs/j1/0",
                   .ranks = {0, 1},
                   .log_paths = {"logs/j1/0/node0.rank0.log", "logs/j1/0/node0.rank1.log"},
                   .tee = tee};
}

std::string joined_notes(const StartInfo& in) {
  std::string s;
  for (const auto& l : start_notes(in)) s += l + "\n";
  return s;
}

TEST(StartNotes, NamesJobRealFolderAndEachLog) {
  const std::string s = joined_notes(two_ranks("0"));
  EXPECT_NE(s.find("job j1, attempt 0: logs in logs/j1/0/\n"), std::string::npos) << s;
  EXPECT_NE(s.find("rank 0 log: logs/j1/0/node0.rank0.log\n"), std::string::npos) << s;
  EXPECT_NE(s.find("rank 1 log: logs/j1/0/node0.rank1.log\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("ATTEMPT"), std::string::npos) << s;
}

TEST(StartNotes, SaysWhoseOutputIsShown) {
  EXPECT_NE(joined_notes(two_ranks("0"))
                .find("showing rank 0's output (all ranks' logs in logs/j1/0/; --tee all to see every rank)"),
            std::string::npos);
  EXPECT_NE(joined_notes(two_ranks("1")).find("showing rank 1's output"), std::string::npos);
  EXPECT_NE(joined_notes(two_ranks("all"))
                .find("showing every rank's output, each line prefixed [rankN]: (logs in logs/j1/0/; --tee 0 "
                      "for rank 0 only, --tee none for none)"),
            std::string::npos);
  EXPECT_NE(joined_notes(two_ranks("none")).find("showing no rank's output (--tee none"), std::string::npos);
  EXPECT_NE(joined_notes(two_ranks("5"))
                .find("showing no rank's output: --tee 5 names no rank of this job (ranks 0,1;"),
            std::string::npos);
}

TEST(StartNotes, ManyRanksInOneLine) {
  StartInfo in = two_ranks("0");
  in.node_rank = 1;
  in.nnodes = 2;
  in.attempt = 2;
  in.attempt_dir = "logs/j1/2";
  in.ranks.clear();
  in.log_paths.clear();
  for (int r = 64; r < 128; ++r) {
    in.ranks.push_back(r);
    in.log_paths.push_back(fmt::format("logs/j1/2/node1.rank{}.log", r));
  }
  const std::vector<std::string> lines = start_notes(in);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "job j1 (node rank 1 of 2), attempt 2: logs in logs/j1/2/");
  EXPECT_EQ(lines[1], "logs of ranks 64-127: logs/j1/2/node1.rankR.log, R = 64-127");
  EXPECT_NE(lines[2].find("showing no rank's output here: rank 0 is not on this node"), std::string::npos)
      << lines[2];
}

}  // namespace
}  // namespace dd::launch
