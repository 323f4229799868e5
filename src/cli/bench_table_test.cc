// BenchTable: each row printed the moment both modes of its size are measured (not at the end), failed and
// never-run rows at the end, and nccl-tests' closing "# Avg bus bandwidth" line.
#include "cli/bench_table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace dd::cli {
namespace {

comm::OpOutcome measured_op(uint64_t bytes, bool in_place, double busbw) {
  comm::OpOutcome o;
  o.req.coll = comm::Coll::all_reduce;
  o.req.bytes = o.bytes = bytes;
  o.req.in_place = in_place;
  o.req.check = true;
  o.complete = true;
  o.status = comm::OpStatus::ok;
  o.time_us = 10;
  o.algbw = o.busbw = busbw;
  return o;
}

TEST(BenchTable, PrintsEachRowWhenMeasured) {
  comm::BenchOptions b;
  std::ostringstream text;
  BenchTable table(b, text);
  comm::BenchResult head;
  head.run.world = 2;
  const auto a = measured_op(1024, false, 1), a_in = measured_op(1024, true, 3);
  table.on_op(head, a);
  EXPECT_EQ(text.str().find("1024"), std::string::npos) << "the in-place half is still to come\n"
                                                        << text.str();
  table.on_op(head, a_in);
  EXPECT_NE(text.str().find("          1024"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("Avg bus bandwidth"), std::string::npos) << text.str();
  const auto c = measured_op(4096, false, 6), c_in = measured_op(4096, true, 6);
  table.on_op(head, c);
  table.on_op(head, c_in);
  head.run.ops = {a, a_in, c, c_in};
  table.finish(head);
  const std::string out = text.str();
  EXPECT_EQ(out.find("          1024"), out.rfind("          1024")) << "each row once\n" << out;
  EXPECT_NE(out.find("# Out of bounds values : 0 OK"), std::string::npos) << out;
  EXPECT_NE(out.find("# Avg bus bandwidth    : 4\n"), std::string::npos) << out;  // (1 + 3 + 6 + 6) / 4
}

// A size that failed is a FAILED row with its error, the sizes after it "not run", never rows of zeros.
TEST(BenchTable, FailedSizeIsShownAsFailed) {
  comm::BenchOptions b;
  b.in_place = false;  // out-of-place only: each op is a whole row
  std::ostringstream text;
  BenchTable table(b, text);
  comm::BenchResult r;
  r.run.world = 2;
  comm::OpOutcome ok = measured_op(1 << 30, false, 500), failed, skipped;
  table.on_op(r, ok);
  EXPECT_NE(text.str().find("1073741824"), std::string::npos) << text.str();
  failed.req.coll = skipped.req.coll = comm::Coll::all_reduce;
  failed.req.bytes = failed.bytes = 2ull << 30;
  failed.status = comm::OpStatus::failed;
  failed.error = "all_reduce: an illegal memory access was encountered";
  skipped.req.bytes = skipped.bytes = 4ull << 30;
  r.run.ops = {ok, failed, skipped};
  table.finish(r);
  const std::string out = text.str();
  EXPECT_NE(out.find("FAILED"), std::string::npos) << out;
  EXPECT_NE(out.find("not run"), std::string::npos) << out;
  EXPECT_NE(out.find("illegal memory access"), std::string::npos) << out;
  EXPECT_NE(out.find("# Avg bus bandwidth    : 500\n"), std::string::npos) << out;  // complete runs only
}

}  // namespace
}  // namespace dd::cli
