// CUDA_VISIBLE_DEVICES parsing (as CUDA reads it) and the cuda.visible_devices rule.
#include "rules/cuda_visible.h"

#include <gtest/gtest.h>

#include "rules/node_rules.h"
#include "rules/test_facts.h"

namespace dd::rules {
namespace {

using namespace testing;

std::vector<probe::Gpu> gpus(int n) {
  std::vector<probe::Gpu> v;
  for (int i = 0; i < n; i++) v.push_back(gpu(i));
  return v;
}

CudaVisible parse(const std::string& v, int n = 4) { return parse_cuda_visible_devices(v, gpus(n), n); }

TEST(CudaVisibleParse, IndicesStopAtFirstInvalid) {
  EXPECT_EQ(parse("0,1").count, 2);
  EXPECT_EQ(parse("1,0").nvml_indices, (std::vector<int>{1, 0}));
  auto r = parse("0,,x");
  EXPECT_EQ(r.count, 1);
  EXPECT_EQ(r.stop_pos, 1);
  EXPECT_EQ(r.stop_reason, "empty");
  EXPECT_EQ(r.ignored, 1);
  r = parse("0,2,-1,1");
  EXPECT_EQ(r.count, 2);
  EXPECT_EQ(r.stop_reason, "negative");
  EXPECT_EQ(parse(" 1 , 2").count, 2);  // blanks around entries are skipped
  EXPECT_EQ(parse("1gpu,2").count, 2);  // strtoul-like: leading digits count
  EXPECT_EQ(parse("").count, 0);
  EXPECT_EQ(parse("-1").count, 0);
  EXPECT_EQ(parse("none").stop_reason, "not a number");
}

TEST(CudaVisibleParse, RangeAndDuplicates) {
  auto r = parse("0,5,1", 2);
  EXPECT_EQ(r.count, 1);
  EXPECT_EQ(r.stop_pos, 1);
  EXPECT_EQ(r.stop_reason.rfind("out of range", 0), 0u);
  r = parse("0,1,0");
  EXPECT_TRUE(r.duplicate);
  EXPECT_EQ(r.count, 0);
  EXPECT_EQ(parse("99999999999999999999999", 2).count, 0);
  // Unknown GPU count: no range check, count unknown.
  auto u = parse_cuda_visible_devices(std::string("0,7"), {}, -1);
  EXPECT_EQ(u.count, -1);
  EXPECT_EQ(u.stop_pos, -1);
}

// Found by fuzz/env_grammar.cc: with the GPU count unknown, an index beyond int (capped at 2^40 when read)
// was cut to 32 bits and listed as a negative NVML index.
TEST(CudaVisibleParse, IndexBeyondIntStopsEvenWithoutGpuCount) {
  auto u = parse_cuda_visible_devices(std::string("0,999999999999,1"), {}, -1);
  EXPECT_EQ(u.nvml_indices, (std::vector<int>{0}));
  EXPECT_EQ(u.stop_pos, 1);
  EXPECT_EQ(u.stop_reason, "out of range");
  EXPECT_EQ(u.ignored, 1);
}

TEST(CudaVisibleParse, UuidsAndMig) {
  auto g = gpus(3);
  auto r = parse_cuda_visible_devices(std::string("GPU-bbbb,GPU-aaaa0"), g, 3);
  EXPECT_EQ(r.nvml_indices, (std::vector<int>{1, 0}));
  r = parse_cuda_visible_devices(std::string("GPU-,GPU-aaaa"), g, 3);  // "GPU-" matches all: ambiguous
  EXPECT_EQ(r.count, 0);
  EXPECT_EQ(r.stop_reason, "ambiguous UUID prefix");
  r = parse_cuda_visible_devices(std::string("GPU-aaaa,1"), g, 3);  // an index after UUIDs ends the list
  EXPECT_EQ(r.count, 1);
  EXPECT_EQ(r.stop_pos, 1);
  r = parse_cuda_visible_devices(std::string("GPU-ffff"), g, 3);
  EXPECT_EQ(r.stop_reason, "unknown UUID");
  r = parse_cuda_visible_devices(std::string("GPU-aaaa,GPU-aaaa0"), g, 3);  // same GPU twice
  EXPECT_TRUE(r.duplicate);
  r = parse_cuda_visible_devices(std::string("0,GPU-aaaa"), g, 3);
  EXPECT_EQ(r.count, 1);
  r = parse_cuda_visible_devices(std::string("MIG-1234,MIG-5678"), g, 3);
  EXPECT_EQ(r.mode, CudaVisible::Mode::mig);
  EXPECT_EQ(r.mig_ids.size(), 2u);
}

probe::NodeFacts facts_with(int n, std::optional<std::string> cvd) {
  probe::NodeFacts f;
  set_gpus(f, n);
  if (cvd) set_env(f, "CUDA_VISIBLE_DEVICES", *cvd);
  return f;
}

TEST(CudaVisibleRule, FewerGpusThanProcesses) {
  CheckOptions o;
  o.nproc_per_node = 4;
  auto v = run(cuda_visible_rule(), facts_with(8, "4,5,6"), o);
  auto* f = find(v, "cuda.visible_devices.too_few");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, report::Severity::fail);
  EXPECT_NE(f->title.find("local rank 3 fail"), std::string::npos);
  o.nproc_per_node = 3;
  v = run(cuda_visible_rule(), facts_with(8, "4,5,6"), o);
  EXPECT_TRUE(has(v, "cuda.visible_devices.ok"));
  EXPECT_EQ(worst(v), report::Severity::ok);
  // Unset: every GPU counts, and the report says so.
  EXPECT_TRUE(has(run(cuda_visible_rule(), facts_with(2, std::nullopt), {}), "cuda.visible_devices.ok"));
  o.nproc_per_node = 2;
  EXPECT_EQ(worst(run(cuda_visible_rule(), facts_with(2, std::nullopt), o)), report::Severity::ok);
  o.nproc_per_node = 4;
  EXPECT_TRUE(has(run(cuda_visible_rule(), facts_with(2, std::nullopt), o), "cuda.visible_devices.too_few"));
}

TEST(CudaVisibleRule, MalformedDuplicateEmpty) {
  CheckOptions o;
  auto v = run(cuda_visible_rule(), facts_with(4, "0,,x"), o);
  ASSERT_TRUE(has(v, "cuda.visible_devices.malformed"));
  EXPECT_EQ(find(v, "cuda.visible_devices.malformed")->severity, report::Severity::warn);
  o.nproc_per_node = 2;
  v = run(cuda_visible_rule(), facts_with(4, "0,,x"), o);
  EXPECT_EQ(find(v, "cuda.visible_devices.malformed")->severity, report::Severity::fail);
  EXPECT_TRUE(has(v, "cuda.visible_devices.too_few"));
  v = run(cuda_visible_rule(), facts_with(4, "0,1,1"), {});
  EXPECT_EQ(find(v, "cuda.visible_devices.duplicate")->severity, report::Severity::fail);
  v = run(cuda_visible_rule(), facts_with(4, ""), {});
  EXPECT_TRUE(has(v, "cuda.visible_devices.empty"));
  v = run(cuda_visible_rule(), facts_with(2, "0,1,2,3"), {});
  EXPECT_TRUE(has(v, "cuda.visible_devices.out_of_range"));
  v = run(cuda_visible_rule(), facts_with(2, "0,1"), {});
  EXPECT_EQ(worst(v), report::Severity::ok);
}

TEST(CudaVisibleRule, DeviceOrderOnMixedModels) {
  auto f = facts_with(2, "1");
  EXPECT_FALSE(has(run(cuda_visible_rule(), f, {}), "cuda.device_order"));
  f.gpu.gpus[1].name = "NVIDIA RTX 6000 Ada";
  EXPECT_TRUE(has(run(cuda_visible_rule(), f, {}), "cuda.device_order"));
  set_env(f, "CUDA_DEVICE_ORDER", "PCI_BUS_ID");
  EXPECT_FALSE(has(run(cuda_visible_rule(), f, {}), "cuda.device_order"));
}

TEST(CudaVisibleRule, MeasuredCountWins) {
  auto f = facts_with(4, "0,1");
  f.cuda.device_count = 1;  // e.g. one GPU fell off the bus
  CheckOptions o;
  o.nproc_per_node = 2;
  auto v = run(cuda_visible_rule(), f, o);
  EXPECT_TRUE(has(v, "cuda.visible_devices.too_few"));
  EXPECT_TRUE(has(v, "cuda.device_count.mismatch"));
}

TEST(CudaVisibleRule, NoFactsNoCrash) {
  probe::NodeFacts f;
  EXPECT_TRUE(run(cuda_visible_rule(), f, {}).empty());
  set_env(f, "CUDA_VISIBLE_DEVICES", std::string(100000, ','));
  CheckOptions o;
  o.nproc_per_node = 8;
  EXPECT_NO_THROW(run(cuda_visible_rule(), f, o));
}

}  // namespace
}  // namespace dd::rules
