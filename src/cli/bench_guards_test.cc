// The sweep's refusals before anything runs: impossible ranges, and buffers that do not fit the memory there
// is (comm::fits, sweep_memory, the message with its figures).
#include "cli/bench_guards.h"

#include <gtest/gtest.h>

namespace dd::cli {
namespace {

BenchArgs range_args(const std::string& b, const std::string& e, double f = 2) {
  BenchArgs a;
  a.min_bytes = b;
  a.max_bytes = e;
  a.step_factor = f;
  return a;
}

TEST(SweepRange, ImpossibleRangesAreRefused) {
  EXPECT_EQ(sweep_range_problem(range_args("8", "64M")), "");
  EXPECT_EQ(sweep_range_problem(range_args("1M", "1M", 1)), "");  // one size: the factor is not used
  EXPECT_NE(sweep_range_problem(range_args("1M", "1K")).find("-b 1M is larger than -e 1K"),
            std::string::npos);
  EXPECT_NE(sweep_range_problem(range_args("0", "1K")).find("at least 1 byte"), std::string::npos);
  EXPECT_NE(sweep_range_problem(range_args("1K", "0")).find("-e 0"), std::string::npos);
  EXPECT_NE(sweep_range_problem(range_args("1K", "1M", 1.5)).find("--step-factor/-f 1.5"), std::string::npos);
}

TEST(SweepMemory, FitsLeavesRoomForTheWorkers) {
  EXPECT_TRUE(comm::fits(1ull << 30, 4, 8ull << 30));
  EXPECT_FALSE(comm::fits(2ull << 30, 4, 8ull << 30));  // 8 GiB of buffers leave nothing for the rest
  EXPECT_FALSE(comm::fits(uint64_t(1) << 62, 4096, ~uint64_t(0)));  // no overflow
}

comm::BenchOptions gloo_sweep(uint64_t max_bytes, std::vector<comm::Coll> colls) {
  comm::BenchOptions b;
  b.run.engine = rules::EngineKind::gloo;
  b.colls = std::move(colls);
  b.min_bytes = 1024;
  b.max_bytes = max_bytes;
  return b;
}

TEST(SweepMemory, BuffersPerRankFollowTheEngine) {
  comm::SweepMemory m = comm::sweep_memory(gloo_sweep(1 << 20, {comm::Coll::all_reduce}), 4);
  EXPECT_EQ(m.send, 1u << 20);
  EXPECT_EQ(m.recv, 1u << 20);
  EXPECT_EQ(m.per_rank(), 2u << 20);
  m = comm::sweep_memory(gloo_sweep(1 << 20, {comm::Coll::alltoall}), 4);  // in-place lands in a stage
  EXPECT_EQ(m.stage, 1u << 20);
  EXPECT_EQ(m.buffers, 3);
}

// The case: -e 8G on a host with 23 GiB free, 4 ranks of every collective: refused with the figures.
TEST(SweepMemory, RefusedWithTheFigures) {
  probe::NodeFacts facts;
  probe::HostMemory host;
  host.meminfo_available = (23ll << 30) + (600ll << 20);
  const std::string msg =
      sweep_memory_problem(gloo_sweep(8ull << 30, {comm::Coll::all_reduce}), 4, facts, host);
  EXPECT_NE(msg.find("-e 8 GiB does not fit in host memory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("each of 4 rank(s) needs 16 GiB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("64 GiB in all"), std::string::npos) << msg;
  EXPECT_NE(msg.find("23.6 GiB available (MemAvailable)"), std::string::npos) << msg;
  EXPECT_EQ(sweep_memory_problem(gloo_sweep(1 << 20, {comm::Coll::all_reduce}), 4, facts, host), "");
  host.meminfo_available = -1;  // unknown: no refusal
  EXPECT_EQ(sweep_memory_problem(gloo_sweep(8ull << 30, {comm::Coll::all_reduce}), 4, facts, host), "");
  comm::BenchOptions nccl = gloo_sweep(64ull << 30, {comm::Coll::all_reduce});  // 128 GiB per rank
  nccl.run.engine = rules::EngineKind::nccl;
  probe::Gpu g;
  g.memory_total_mib = 81559;
  g.memory_used_mib = 0;
  facts.gpu.gpus = {g};
  EXPECT_NE(sweep_memory_problem(nccl, 8, facts, host).find("GPU memory"), std::string::npos);
  nccl.max_bytes = 16ull << 30;
  EXPECT_EQ(sweep_memory_problem(nccl, 8, facts, host), "");
  nccl.run.devices = {0, 0, 0};  // three ranks on one GPU: 96 GiB
  EXPECT_NE(sweep_memory_problem(nccl, 3, facts, host).find("each of 3 rank(s)"), std::string::npos);
}

}  // namespace
}  // namespace dd::cli
