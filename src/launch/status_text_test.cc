// status_text: the live status line's words, its bound, short durations, and when it is shown at all.
#include "launch/status_text.h"

#include <gtest/gtest.h>

#include <limits>

namespace dd::launch {
namespace {

TEST(StatusText, RanksElapsedAndLastOutput) {
  StatusInfo in{.running = 4, .ranks = 4, .elapsed_s = 80.4, .last_rank = 2, .last_ago_s = 3.9};
  EXPECT_EQ(status_text(in), "distdoctor: 4/4 ranks running, 1m20s, last output rank 2 3s ago");
  in.running = 3;
  in.last_rank = -1;
  EXPECT_EQ(status_text(in), "distdoctor: 3/4 ranks running, 1m20s, no output yet");
  StatusInfo one{.running = 1, .ranks = 1, .elapsed_s = 2, .last_rank = 0, .last_ago_s = 0};
  EXPECT_EQ(status_text(one), "distdoctor: 1/1 rank running, 2s, last output rank 0 0s ago");
}

TEST(StatusText, NodeAndAttemptWhenTheyMatter) {
  StatusInfo in{.running = 8,
                .ranks = 8,
                .node_rank = 3,
                .nnodes = 4,
                .elapsed_s = 7265,
                .attempt = 2,
                .last_rank = 31,
                .last_ago_s = 61};
  // 86 characters with the attempt: it is left out to stay within the bound.
  EXPECT_EQ(status_text(in), "distdoctor: node 3: 8/8 ranks running, 2h01m, last output rank 31 1m01s ago");
  in.nnodes = 1;  // one node: room for it
  EXPECT_EQ(status_text(in),
            "distdoctor: 8/8 ranks running (attempt 2), 2h01m, last output rank 31 1m01s ago");
}

TEST(StatusText, NeverWiderThanTheBound) {
  StatusInfo in{.running = 1000000,
                .ranks = 1000000,
                .node_rank = 1000000,
                .nnodes = 2000000,
                .elapsed_s = 1e15,
                .attempt = 1000,
                .last_rank = 99999999,
                .last_ago_s = 1e15};
  const std::string t = status_text(in);
  EXPECT_EQ(t.size(), kStatusColumns);
  EXPECT_EQ(t.find('\n'), std::string::npos);
}

TEST(StatusText, ShortDurations) {
  EXPECT_EQ(short_duration(0), "0s");
  EXPECT_EQ(short_duration(59.99), "59s");
  EXPECT_EQ(short_duration(60), "1m00s");
  EXPECT_EQ(short_duration(3599), "59m59s");
  EXPECT_EQ(short_duration(3600), "1h00m");
  EXPECT_EQ(short_duration(86400 + 4 * 3600 + 59), "1d04h");
  EXPECT_EQ(short_duration(-5), "0s");
  EXPECT_EQ(short_duration(std::numeric_limits<double>::quiet_NaN()), "0s");
  EXPECT_EQ(short_duration(std::numeric_limits<double>::infinity()), "0s");
}

TEST(StatusText, ShownOnATerminalOnly) {
  EXPECT_TRUE(status_line_wanted(false, true, ""));
  EXPECT_FALSE(status_line_wanted(false, false, ""));  // a pipe or a file: logs stay clean
  EXPECT_FALSE(status_line_wanted(true, true, ""));    // --json: never
  EXPECT_FALSE(status_line_wanted(true, true, "1"));
  EXPECT_TRUE(status_line_wanted(false, false, "1"));  // DISTDOCTOR_STATUS_LINE=1 (tests)
  EXPECT_FALSE(status_line_wanted(false, true, "0"));
  EXPECT_TRUE(status_line_wanted(false, true, "yes"));  // anything else: as unset
  EXPECT_FALSE(status_line_wanted(false, false, "yes"));
}

}  // namespace
}  // namespace dd::launch
