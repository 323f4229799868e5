// Size sweeps with the Gloo engine (CPU, worker processes): every collective, in-place and out-of-place,
// across sizes in one run and in an order where buffers shrink and grow again, with every output element
// checked on every rank. The NCCL twin is tools/device/check_gpu.sh (STEPS=bench).
#include <gtest/gtest.h>

#include "comm/bench.h"
#include "comm/run/run_findings.h"
#include "comm/run/test_node.h"

namespace dd::comm {

using testing::bare_node;

namespace {

BenchOptions sweep_options(int nproc) {
  BenchOptions b;
  b.run.engine = rules::EngineKind::gloo;
  b.run.nproc = nproc;
  b.run.self_exe = DD_BINARY;
  b.run.init_timeout = std::chrono::milliseconds(5000);
  b.colls.clear();
  for (const auto& ci : collectives()) b.colls.push_back(ci.coll);
  b.min_bytes = 1024;
  b.max_bytes = 4ull << 20;
  b.step_factor = 4;
  b.warmup = 1;
  b.iters = 1;
  return b;
}

// Elements rank `rank` must have compared for `o` (check_every: once per timed run as well).
int64_t expected_checked(const OpOutcome& o, int world, int rank) {
  if (!data_checked(o.req) || (o.req.coll == Coll::reduce && rank != o.req.root)) return 0;
  int64_t per_run =
      int64_t(coll_info(o.req.coll).size(o.req.bytes, dtype_size(o.req.dtype), world, rank).check_count);
  return o.req.check_every ? per_run * o.req.iters : per_run;
}

std::string failures(const RunOutcome& r) {
  std::string s;
  for (const auto& f : r.findings) {
    s += f.id + ": " + f.title + "\n";
    for (const auto& e : f.evidence) s += "  " + e + "\n";
  }
  return s;
}

// Every op complete, status ok, no wrong element, and every element the table says was checked.
void expect_every_element_checked(const RunOutcome& r) {
  ASSERT_TRUE(r.ok) << failures(r);
  for (const auto& o : r.ops) {
    const std::string what = op_label(o.req);
    EXPECT_TRUE(o.complete) << what;
    EXPECT_EQ(o.status, OpStatus::ok) << what << ": " << o.error;
    EXPECT_EQ(o.wrong, 0) << what;
    EXPECT_GT(o.busbw, 0) << what;
    ASSERT_EQ(int(o.ranks.size()), r.world) << what;
    for (const auto& rr : o.ranks) EXPECT_EQ(rr.checked, expected_checked(o, r.world, rr.rank)) << what;
  }
}

void sweep_on(int nproc) {
  BenchOptions b = sweep_options(nproc);
  BenchResult res = run_bench(b, bare_node());
  // 7 collectives x 7 sizes (1K..4M by 4x) x 2 modes.
  EXPECT_EQ(res.run.ops.size(), 7u * 7u * 2u);
  size_t in_place = 0;
  for (const auto& o : res.run.ops) in_place += o.req.in_place ? 1 : 0;
  EXPECT_EQ(in_place, 7u * 7u);
  expect_every_element_checked(res.run);
}

}  // namespace

TEST(BenchSweepGloo, EveryCollectiveBothModesGrowingSizesTwoRanks) { ASSERT_NO_FATAL_FAILURE(sweep_on(2)); }

TEST(BenchSweepGloo, EveryCollectiveBothModesGrowingSizesThreeRanks) { ASSERT_NO_FATAL_FAILURE(sweep_on(3)); }

// Large, small, large again: a buffer sized for one mode or size must never serve another that needs more
// (the in-place reduce_scatter of a size needs n chunks, its out-of-place output only one).
TEST(BenchSweepGloo, ShrinkingAndGrowingOrderEveryTimedRunChecked) {
  for (int nproc : {2, 3}) {
    RunOptions o = sweep_options(nproc).run;
    for (uint64_t bytes : {4ull << 20, 1024ull, 1ull << 20, 4096ull, 4ull << 20, 64ull << 10})
      for (const auto& ci : collectives())
        for (bool in_place : {true, false}) {
          OpRequest r;
          r.coll = ci.coll;
          r.bytes = bytes;
          r.in_place = in_place;
          r.warmup = 1;
          r.iters = 2;
          r.check = !in_place || ci.in_place_checked;
          r.check_every = true;
          r.timeout = std::chrono::milliseconds(10000);
          o.ops.push_back(r);
        }
    RunOutcome r = run_collectives(o, bare_node());
    ASSERT_NO_FATAL_FAILURE(expect_every_element_checked(r)) << "nproc " << nproc;
  }
}

TEST(BenchSweepGloo, InPlaceAlltoallAndSendrecvAreTimedNotChecked) {
  BenchOptions b = sweep_options(2);
  b.colls = {Coll::alltoall, Coll::sendrecv};
  b.min_bytes = b.max_bytes = 64 << 10;
  std::vector<OpRequest> ops = build_sweep(b, 2);
  ASSERT_EQ(ops.size(), 4u);
  for (const auto& o : ops) EXPECT_EQ(o.check, !o.in_place) << op_label(o);
  BenchResult res = run_bench(b, bare_node());
  expect_every_element_checked(res.run);
  nlohmann::json j = bench_json(res, b);
  for (const auto& row : j["results"]) {
    EXPECT_EQ(row["status"], "ok");
    EXPECT_EQ(row["wrong"].is_null(), row["in_place"].get<bool>()) << row.dump();
  }
}

}  // namespace dd::comm
