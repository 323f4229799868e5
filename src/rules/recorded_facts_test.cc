// The rules on facts recorded by `distdoctor facts --json` on a real 2x H200 (NVLink 4) machine
// (fixtures/facts/h200x2.json, driver 580.159.04, CUDA 13.0, NCCL 2.28.3 in /usr/lib and PyTorch's 2.28.9 in
// a virtualenv, recorded as /srv/train-venv): what that GPU node gives, and
// what the same node gives once a known fault is injected into its facts.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "rules/rule.h"

namespace dd::rules {
namespace {

using report::Severity;

// h200x2.json: plain `facts --json` (cuInit skipped); h200x2_cuinit.json: an earlier recording with cuInit,
// before the probe found PyTorch's NCCL.
probe::NodeFacts load_h200(const char* name = "h200x2.json") {
  std::ifstream in(std::string(DD_FIXTURE_DIR) + "/facts/" + name);
  EXPECT_TRUE(in.good());
  return nlohmann::json::parse(in).get<probe::NodeFacts>();
}

std::set<std::string> ids_at_least(const std::vector<report::Finding>& v, Severity s) {
  std::set<std::string> out;
  for (const auto& f : v)
    if (f.severity >= s) out.insert(f.id);
  return out;
}

TEST(RecordedFacts, H200FactsMatchNvidiaSmi) {
  auto f = load_h200();
  ASSERT_EQ(f.gpu.gpus.size(), 2u);
  // nvidia-smi topo -m / topo -p2p r on the same machine (fixtures/facts/h200x2/).
  EXPECT_EQ(f.gpu.topology[0][1], "NV18");
  EXPECT_EQ(f.gpu.p2p_read[1][0], "OK");
  EXPECT_EQ(f.gpu.gpus[0].nvlinks_active, 18);
  EXPECT_FALSE(f.cuda.init_probed);
  EXPECT_EQ(load_h200("h200x2_cuinit.json").cuda.device_count, 2);
}

TEST(RecordedFacts, H200NodeIsCleanWithItsHostnameAndTwoNccls) {
  auto f = load_h200();
  CheckOptions o;
  o.nproc_per_node = 2;
  auto v = run_node_rules(f, o);
  // Both are real on that machine and neither is a warning here: the sandbox's hostname "vm" resolves to
  // 127.0.0.1 (a warning only where another node needs it), and the system NCCL (2.28.3) differs from the one
  // PyTorch ships (2.28.9), which each program loads its own of.
  EXPECT_TRUE(ids_at_least(v, Severity::warn).empty());
  EXPECT_TRUE(ids_at_least(v, Severity::info).count("nccl.multiple_versions"));
  EXPECT_TRUE(ids_at_least(v, Severity::info).count("host.hostname_loopback"));
  EXPECT_TRUE(ids_at_least(v, Severity::ok).count("nccl.env.ok"));  // NCCL_NVLS_ENABLE=0: valid
  o.nnodes = 2;
  EXPECT_EQ(ids_at_least(run_node_rules(f, o), Severity::warn),
            (std::set<std::string>{"host.hostname_loopback"}));
  o.nnodes = 0;
  // With those two fixed, the node is clean: no false warning on a healthy NVLink machine.
  f.host.resolved_addrs = {"198.18.0.5"};
  ASSERT_EQ(f.nccl.libs.size(), 2u);
  f.nccl.libs.pop_back();
  EXPECT_TRUE(ids_at_least(run_node_rules(f, o), Severity::warn).empty());
}

TEST(RecordedFacts, InjectedFaultsOnTheRecordedNodeAreFound) {
  CheckOptions o;
  o.nproc_per_node = 2;
  auto f = load_h200();
  f.host.resolved_addrs = {"198.18.0.5"};
  f.env["CUDA_VISIBLE_DEVICES"] = "0";
  f.cuda.visible_devices_set = true;
  f.cuda.visible_devices = "0";
  f.cuda.device_count = 1;
  EXPECT_TRUE(ids_at_least(run_node_rules(f, o), Severity::fail).count("cuda.visible_devices.too_few"))
      << "2 processes, 1 visible GPU";

  f = load_h200();
  f.nccl.libs.resize(1);
  f.system.shm_total_bytes = f.system.shm_free_bytes = 64LL << 20;  // Docker's default /dev/shm
  EXPECT_FALSE(ids_at_least(run_node_rules(f, o), Severity::warn).empty());

  f = load_h200();
  f.gpu.gpus[1].processes.push_back({4242, "python3", 40000});
  f.gpu.gpus[1].memory_used_mib = 40615;
  auto busy = ids_at_least(run_node_rules(f, o), Severity::warn);
  EXPECT_TRUE(busy.count("gpu.busy"));

  f = load_h200();
  f.nccl.settings["NCCL_ALGO"] = {"bogus", "env"};  // NCCL 2.28 rejects it at init
  f.nccl.settings["NCCL_NET"] = {"IB", "env"};      // no RDMA device on that machine
  auto env_faults = ids_at_least(run_node_rules(f, o), Severity::fail);
  EXPECT_TRUE(env_faults.count("nccl.algo.invalid"));
  EXPECT_TRUE(env_faults.count("nccl.net.ib_unavailable"));

  f = load_h200();
  f.gpu.gpus[0].nvlinks_active = 0;  // links down on one GPU while up on the other
  f.gpu.topology[0][1] = f.gpu.topology[1][0] = "SYS";
  EXPECT_FALSE(ids_at_least(run_node_rules(f, o), Severity::warn).empty());
}

}  // namespace
}  // namespace dd::rules
