// One GPU per worker: each NCCL worker gets its own entry of the node's CUDA_VISIBLE_DEVICES (or the CUDA
// index), and the workers keep the node's view whenever narrowing could change what CUDA shows them.
#include "comm/run/own_gpu.h"

#include <gtest/gtest.h>

#include "comm/run/run_setup.h"

namespace dd::comm {
namespace {

probe::NodeFacts node(int ngpu, const char* visible = nullptr) {
  probe::NodeFacts f;
  for (int i = 0; i < ngpu; ++i) {
    probe::Gpu g;
    g.index = i;
    g.uuid = "GPU-" + std::to_string(i) + "aaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
    f.gpu.gpus.push_back(g);
  }
  if (visible) {
    f.cuda.visible_devices_set = true;
    f.cuda.visible_devices = visible;
  }
  return f;
}

std::vector<std::string> values(const probe::NodeFacts& f, RunOptions opt = {}) {
  return own_gpu_values(opt, run_layout(opt, f), f);
}

TEST(OwnGpu, IndexPerWorkerWhenTheNodeSetsNothing) {
  EXPECT_EQ(values(node(4)), (std::vector<std::string>{"0", "1", "2", "3"}));
}

TEST(OwnGpu, TheNodesOwnEntriesInItsOrder) {
  EXPECT_EQ(values(node(4, "3, 1")), (std::vector<std::string>{"3", "1"}));
  const auto f = node(4, "GPU-2aaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee,GPU-0aaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
  EXPECT_EQ(values(f), (std::vector<std::string>{"GPU-2aaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
                                                 "GPU-0aaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"}));
}

TEST(OwnGpu, ChosenDevicesPickTheirEntries) {
  RunOptions opt;
  opt.nproc = 2;
  opt.devices = {2, 0};
  EXPECT_EQ(values(node(4, "7,6,5"), opt), (std::vector<std::string>{}));  // 7 is out of range: keep the view
  EXPECT_EQ(values(node(8, "7,6,5"), opt), (std::vector<std::string>{"5", "7"}));
}

TEST(OwnGpu, KeepsTheNodesViewWhereNarrowingCouldChangeIt) {
  EXPECT_TRUE(values(node(4, "0,junk,2")).empty());  // CUDA stops at "junk"
  EXPECT_TRUE(values(node(4, "1,1")).empty());       // a duplicate: CUDA shows nothing
  EXPECT_TRUE(values(node(4, "MIG-1234")).empty());
  EXPECT_TRUE(values(node(4, "")).empty());
  RunOptions gloo;
  gloo.engine = rules::EngineKind::gloo;
  EXPECT_TRUE(values(node(4), gloo).empty());
  RunOptions threads;
  threads.threads = true;
  EXPECT_TRUE(values(node(4), threads).empty());
  RunOptions own;
  own.env.push_back({"CUDA_VISIBLE_DEVICES", "1"});
  EXPECT_TRUE(values(node(4), own).empty());
}

TEST(OwnGpu, WorkerSpecsAndPlanAgree) {
  const auto f = node(2);
  RunOptions opt;
  const RunLayout l = run_layout(opt, f);
  const Plan plan = make_plan(opt, l, f, "/nonexistent");
  EXPECT_TRUE(plan.own_gpu);
  const auto specs = worker_specs(opt, l, f, "/nonexistent", "/nonexistent/plan.json", "distdoctor");
  ASSERT_EQ(specs.size(), 2u);
  for (size_t w = 0; w < specs.size(); ++w) {
    std::string cvd;
    for (const auto& [k, v] : specs[w].env)
      if (k == "CUDA_VISIBLE_DEVICES") cvd = v;
    EXPECT_EQ(cvd, std::to_string(w));
  }
  opt.threads = true;
  EXPECT_FALSE(make_plan(opt, run_layout(opt, f), f, "/nonexistent").own_gpu);
}

}  // namespace
}  // namespace dd::comm
