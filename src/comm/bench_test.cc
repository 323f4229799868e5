// Tests of the sweep builder, the link math (NVML version values, PCIe lanes) and the link findings.
#include "comm/bench.h"

#include <gtest/gtest.h>

#include <sstream>

#include "comm/run/run_findings.h"

namespace dd::comm {

TEST(BenchSweep, SizesModesAndDedup) {
  BenchOptions b;
  b.colls = {Coll::all_reduce, Coll::alltoall};
  b.min_bytes = 1024;
  b.max_bytes = 8192;
  b.step_factor = 2;
  auto ops = build_sweep(b, 3);
  // all_reduce: 1K, 2K, 4K, 8K x (out, in); alltoall: the same, sizes rounded to 3 ranks' whole elements,
  // its in-place runs timed but not checked (nccl-tests reports their error column as N/A).
  int ar = 0, a2a = 0;
  for (const auto& o : ops) {
    if (o.coll == Coll::all_reduce) ++ar;
    if (o.coll == Coll::alltoall) {
      ++a2a;
      EXPECT_EQ(o.check, !o.in_place);
      EXPECT_EQ(o.bytes % (3 * 4), 0u);
    }
    EXPECT_GE(o.timeout.count(), 10000);
  }
  EXPECT_EQ(ar, 8);
  EXPECT_EQ(a2a, 8);
  b.in_place = false;
  b.colls = {Coll::all_reduce};
  b.min_bytes = b.max_bytes = 1 << 20;
  ops = build_sweep(b, 2);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].bytes, 1u << 20);
}

TEST(BenchSweep, CheckAllMarksEveryRun) {
  BenchOptions b;
  b.min_bytes = b.max_bytes = 4096;
  b.check_all = true;
  for (const auto& o : build_sweep(b, 2)) EXPECT_TRUE(o.check_every);
}

// A size that failed is a failed row (text and JSON), never a row of zeros; the ones after it "not run".
TEST(BenchReport, FailedSizeIsShownAsFailed) {
  BenchResult r;
  r.run.world = 2;
  OpOutcome ok, failed, skipped;
  ok.req.coll = failed.req.coll = skipped.req.coll = Coll::reduce_scatter;
  ok.req.bytes = ok.bytes = 1 << 30;
  ok.complete = true;
  ok.status = OpStatus::ok;
  ok.time_us = 1000;
  ok.busbw = 500;
  failed.req.bytes = failed.bytes = 2ull << 30;
  failed.req.in_place = true;
  failed.status = OpStatus::failed;
  failed.error = "reduce_scatter: an illegal memory access was encountered";
  skipped.req.bytes = skipped.bytes = 4ull << 30;
  r.run.ops = {ok, failed, skipped};
  BenchOptions b;
  nlohmann::json j = bench_json(r, b);  // the text table: cli/bench_table_test.cc
  EXPECT_EQ(j["results"][0]["status"], "ok");
  EXPECT_EQ(j["results"][0]["busbw_gbps"], 500.0);
  EXPECT_EQ(j["results"][1]["status"], "failed");
  EXPECT_EQ(j["results"][1]["error"], failed.error);
  EXPECT_TRUE(j["results"][1]["busbw_gbps"].is_null());
  EXPECT_TRUE(j["results"][1]["wrong"].is_null());
  EXPECT_EQ(j["results"][2]["status"], "not_run");
  EXPECT_TRUE(j["results"][2]["time_us"].is_null());
}

// One rank moves nothing between ranks: busbw 0 for every collective (broadcast's factor is 1) and an
// in-place algbw of 0 (a no-op timed; 288206 GB/s was reported), while out of place algbw is a local copy.
TEST(BenchReport, OneRankHasNoBusBandwidth) {
  std::map<int, RankResult> m;
  m[0].rank = 0;
  m[0].time_us = 2;
  OpRequest req;
  req.coll = Coll::broadcast;
  req.bytes = 1 << 20;
  OpOutcome out_of_place = complete_op(req, m, 1);
  EXPECT_GT(out_of_place.algbw, 0);
  EXPECT_EQ(out_of_place.busbw, 0);
  req.in_place = true;
  OpOutcome in_place = complete_op(req, m, 1);
  EXPECT_EQ(in_place.algbw, 0);
  EXPECT_EQ(in_place.busbw, 0);
  EXPECT_EQ(in_place.status, OpStatus::ok);
  EXPECT_GT(complete_op(req, m, 2).busbw, 0);  // two ranks: the usual figures
}

TEST(Link, NvmlVersionsAndPcie) {
  EXPECT_EQ(nvlink_generation(6), 4);  // what an H200 reports
  EXPECT_EQ(nvlink_generation(4), 3);
  EXPECT_EQ(nvlink_generation(7), 5);
  EXPECT_DOUBLE_EQ(nvlink_gbps_per_link(6) * 18, 450.0);
  EXPECT_DOUBLE_EQ(nvlink_gbps_per_link(7), 50.0);
  EXPECT_NEAR(pcie_gbps(5, 16), 63.0, 0.1);
  EXPECT_EQ(pcie_gbps(0, 16), 0.0);
  LinkFacts f;
  f.nvml_ok = true;
  f.gpus = {{0, "a", 18, 6, 5, 16}, {1, "b", 12, 6, 5, 16}};
  LinkLimit l = intra_node_limit(f, 2);
  EXPECT_DOUBLE_EQ(l.gbps, 300.0);  // the weaker GPU bounds the node
  EXPECT_EQ(l.description, "NVLink 4 x12 = 300 GB/s per direction");
  f.gpus[1].nvlinks_active = 0;  // one GPU without NVLink: PCIe is the path
  l = intra_node_limit(f, 2);
  EXPECT_NEAR(l.gbps, 63.0, 0.1);
}

// A run of one complete, out-of-place op of `coll` at `bytes` reaching `busbw` GB/s.
RunOutcome one_op_run(int world, Coll coll, uint64_t bytes, double busbw) {
  RunOutcome run;
  run.world = world;
  OpOutcome o;
  o.req.coll = coll;
  o.complete = true;
  o.bytes = bytes;
  o.busbw = busbw;
  run.ops = {o};
  return run;
}

TEST(Link, FindingsFlagFarBelowTheLink) {
  RunOutcome run = one_op_run(2, Coll::all_reduce, 1ull << 30, 100);
  LinkLimit l{450, "NVLink 4 x18 = 450 GB/s per direction"};
  auto f = link_findings(run, l);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "comm.bw.low");
  run.ops[0].busbw = 345;
  f = link_findings(run, l);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "comm.bw.link");
  EXPECT_NE(f[0].title.find("77%"), std::string::npos) << f[0].title;
  run.ops[0].bytes = 1 << 20;  // latency-bound sizes say nothing about the link
  EXPECT_TRUE(link_findings(run, l).empty());
}

// 4x H100 (bench/results/sendrecv_h100x4.md): a healthy sendrecv at 64 MiB reaches 34% of NVLink (as under
// nccl-tests) and must not read as far below it; with P2P disabled it reaches 5% and must.
TEST(Link, SixtyFourMiBIsJudgedByWhatAHealthyNodeReachesThere) {
  RunOutcome run = one_op_run(4, Coll::sendrecv, 64ull << 20, 155.0);
  LinkLimit l{450, "NVLink 4 x18 = 450 GB/s per direction"};
  auto f = link_findings(run, l);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "comm.bw.link") << f[0].title;
  run.ops[0].busbw = 22.3;
  f = link_findings(run, l);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "comm.bw.low") << f[0].title;
  run.ops[0].bytes = 1ull << 30;  // at 1 GiB the healthy figure is 360 GB/s: 155 is far below
  run.ops[0].busbw = 155.0;
  EXPECT_EQ(link_findings(run, l)[0].id, "comm.bw.low");
}

}  // namespace dd::comm
