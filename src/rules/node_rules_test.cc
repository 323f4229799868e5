// The remaining node rules on hand-made facts, plus table-wide properties: every emitted id is documented,
// a healthy 2-GPU NVLink node gives no warning, and hostile facts never crash a rule.
#include "rules/node_rules.h"

#include <gtest/gtest.h>

#include <set>

#include "rules/test_facts.h"

namespace dd::rules {
namespace {

using namespace testing;
using report::Severity;

probe::NodeFacts healthy() { return healthy_two_gpu_node(); }

TEST(NodeRules, HealthyTwoGpuNodeHasNoWarning) {
  CheckOptions o;
  o.nproc_per_node = 2;
  auto v = run_node_rules(healthy(), o);
  for (const auto& f : v) EXPECT_LT(f.severity, Severity::warn) << f.id << ": " << f.title;
  EXPECT_TRUE(has(v, "gpu.p2p.ok"));
  EXPECT_TRUE(has(v, "gpu.idle"));
  EXPECT_TRUE(has(v, "nccl.version_ok"));
  EXPECT_TRUE(has(v, "sys.shm.ok"));
}

TEST(NodeRules, GpuBusy) {
  auto f = healthy();
  f.gpu.gpus[1].processes.push_back({4242, "python", 30000});
  f.gpu.gpus[1].memory_used_mib = 30500;
  auto v = run(gpu_busy_rule(), f);
  auto* b = find(v, "gpu.busy");
  ASSERT_NE(b, nullptr);
  EXPECT_NE(b->title.find("GPU1"), std::string::npos);
  EXPECT_NE(b->title.find("pid 4242 python 30000 MiB"), std::string::npos);
  EXPECT_NE(b->fix.find("kill 4242"), std::string::npos);
  f = healthy();
  f.gpu.gpus[0].memory_used_mib = 5000;  // memory without a visible process
  EXPECT_TRUE(has(run(gpu_busy_rule(), f), "gpu.busy"));
  f = healthy();
  f.gpu.gpus[0].memory_used_mib = 600;  // below threshold
  EXPECT_FALSE(has(run(gpu_busy_rule(), f), "gpu.busy"));
}

TEST(NodeRules, GpuHealth) {
  auto f = healthy();
  f.gpu.gpus[0].ecc_uncorrected_volatile = 2;
  EXPECT_EQ(find(run(gpu_health_rule(), f), "gpu.ecc.uncorrectable")->severity, Severity::fail);
  f = healthy();
  f.gpu.gpus[0].ecc_uncorrected_aggregate = 2;
  EXPECT_EQ(worst(run(gpu_health_rule(), f)), Severity::info);
  f = healthy();
  f.gpu.gpus[1].retired_pages_pending = 1;
  f.gpu.gpus[0].remapped_rows_pending = 1;
  auto v = run(gpu_health_rule(), f);
  EXPECT_TRUE(has(v, "gpu.ecc.retirement_pending"));
  EXPECT_TRUE(has(v, "gpu.ecc.remap_pending"));
  f = healthy();
  f.gpu.gpus[0].remapped_rows_failure = 1;
  f.gpu.gpus[0].mig_mode = 1;
  v = run(gpu_health_rule(), f);
  EXPECT_TRUE(has(v, "gpu.ecc.remap_failed"));
  EXPECT_EQ(find(v, "gpu.mig.enabled")->severity, Severity::warn);
  f = healthy();
  f.gpu.gpus[0].ecc_uncorrected_volatile = -1;  // unknown (ECC off / unsupported)
  EXPECT_TRUE(has(run(gpu_health_rule(), f), "gpu.health.ok"));
}

TEST(NodeRules, P2pTransport) {
  auto f = healthy();
  set_nccl(f, "NCCL_P2P_DISABLE", "1", "/etc/nccl.conf");
  auto v = run(p2p_transport_rule(), f);
  ASSERT_TRUE(has(v, "nccl.p2p_disabled"));
  EXPECT_NE(find(v, "nccl.p2p_disabled")->title.find("/etc/nccl.conf"), std::string::npos);
  set_nccl(f, "NCCL_P2P_DISABLE", "0");
  set_nccl(f, "NCCL_SHM_DISABLE", "1");
  v = run(p2p_transport_rule(), f);
  EXPECT_FALSE(has(v, "nccl.p2p_disabled"));
  EXPECT_TRUE(has(v, "nccl.shm_disabled"));
  set_nccl(f, "NCCL_SHM_DISABLE", "true");  // strtoll reads 0: no effect
  v = run(p2p_transport_rule(), f);
  EXPECT_TRUE(has(v, "nccl.setting_not_a_number"));
  EXPECT_FALSE(has(v, "nccl.shm_disabled"));
  f = healthy();
  f.gpu.p2p_read[0][1] = f.gpu.p2p_read[1][0] = "CNS";
  v = run(p2p_transport_rule(), f);
  ASSERT_TRUE(has(v, "gpu.p2p.unsupported"));
  EXPECT_NE(find(v, "gpu.p2p.unsupported")->evidence[0].find("chipset"), std::string::npos);
  f = healthy();
  f.gpu.gpus[1].nvlinks_active = 12;
  EXPECT_TRUE(has(run(p2p_transport_rule(), f), "gpu.nvlink.down"));
  f = healthy();
  f.gpu.gpus[0].nvlinks_active = f.gpu.gpus[1].nvlinks_active = 0;  // PCIe-only machine: not a fault
  EXPECT_FALSE(has(run(p2p_transport_rule(), f), "gpu.nvlink.down"));
  f.gpu.p2p_read = {{"X"}};  // smaller matrix than GPUs: no crash
  EXPECT_NO_THROW(run(p2p_transport_rule(), f));
}

TEST(NodeRules, SystemLimits) {
  auto f = healthy();
  f.system.shm_total_bytes = 8LL << 30;
  f.system.shm_free_bytes = 100LL << 20;
  EXPECT_TRUE(has(run(sys_limits_rule(), f), "sys.shm.full"));
  f = healthy();
  f.system.memlock_soft = 64 * 1024;
  EXPECT_FALSE(has(run(sys_limits_rule(), f), "sys.memlock.limited"));  // no RDMA device: irrelevant
  f.ib.devices.push_back(ib_dev("mlx5_0", "InfiniBand"));
  EXPECT_TRUE(has(run(sys_limits_rule(), f), "sys.memlock.limited"));
  f.system.nofile_soft = 1024;
  EXPECT_EQ(find(run(sys_limits_rule(), f), "sys.nofile.low")->severity, Severity::info);
}

TEST(NodeRules, Hostname) {
  auto f = healthy();
  EXPECT_TRUE(has(run(hostname_rule(), f), "host.hostname_ok"));
  f.host.resolved_addrs = {"127.0.1.1"};
  auto v = run(hostname_rule(), f);
  ASSERT_TRUE(has(v, "host.hostname_loopback"));
  EXPECT_NE(find(v, "host.hostname_loopback")->fix.find("198.18.0.10"), std::string::npos);
  f.host.resolved_addrs = {"127.0.1.1", "198.18.0.10"};  // also a real address: fine
  EXPECT_FALSE(has(run(hostname_rule(), f), "host.hostname_loopback"));
  f.host.resolved_addrs = {"::1"};
  EXPECT_TRUE(has(run(hostname_rule(), f), "host.hostname_loopback"));
}

TEST(NodeRules, NcclVersions) {
  // PyTorch's own copy and the system's: normal (info), the roles named.
  auto f = healthy();
  f.nccl.libs[0].source = "site-packages (python on PATH)";
  set_nccl_lib(f, "2.21.5", "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
  auto v = run(nccl_version_rule(), f);
  auto* m = find(v, "nccl.multiple_versions");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->severity, Severity::info);
  ASSERT_EQ(m->evidence.size(), 2u);
  EXPECT_NE(m->evidence[1].find("/usr/lib/x86_64-linux-gnu/libnccl.so.2 2.21.5"), std::string::npos);
  EXPECT_NE(m->fix.find("2.28.9: the framework's own"), std::string::npos) << m->fix;
  EXPECT_TRUE(has(v, "nccl.version_ok"));
  // The same copy reached through LD_LIBRARY_PATH, searched before the framework's RUNPATH: a warning.
  f.nccl.libs[1].source = "LD_LIBRARY_PATH";
  m = find(v = run(nccl_version_rule(), f), "nccl.multiple_versions");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->severity, Severity::warn);
  EXPECT_NE(m->evidence[0].find("LD_LIBRARY_PATH holds NCCL 2.21.5"), std::string::npos) << m->evidence[0];
  // LD_PRELOAD of a libnccl: a warning too.
  f.nccl.libs[1].source = "system";
  f.env["LD_PRELOAD"] = "/opt/nccl/lib/libnccl.so.2";
  EXPECT_EQ(find(run(nccl_version_rule(), f), "nccl.multiple_versions")->severity, Severity::warn);
  f = healthy();
  f.nccl.libs[0].version = "";
  f.nccl.libs[0].version_code = 2708;  // pre-2.9 code scheme: 2.7.8
  v = run(nccl_version_rule(), f);
  ASSERT_TRUE(has(v, "nccl.too_old"));
  EXPECT_NE(find(v, "nccl.too_old")->title.find("2.7.8"), std::string::npos);
  f = healthy();
  f.nccl.libs[0].error = "undefined symbol: cudaGetDriverEntryPoint";
  EXPECT_TRUE(has(run(nccl_version_rule(), f), "nccl.load_error"));
  f.nccl.libs.clear();
  EXPECT_EQ(find(run(nccl_version_rule(), f), "nccl.missing")->severity, Severity::warn);
}

TEST(NodeRules, SysvShm) {
  auto f = healthy();
  EXPECT_TRUE(run(sysv_shm_rule(), f).empty());
  f.system.sysv_orphans = {{32769, "0x00000000", 1LL << 30, 1000, 777, 0}, {32770, "0x1234", 4096, 0, 1, 0}};
  auto v = run(sysv_shm_rule(), f);
  auto* o = find(v, "sys.sysv_shm.orphaned");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->severity, Severity::warn);
  EXPECT_NE(o->fix.find("ipcrm -m 32769; ipcrm -m 32770"), std::string::npos);
  f.system.sysv_orphans = {{5, "0x1", 4096, 0, 1, 0}};
  EXPECT_EQ(find(run(sysv_shm_rule(), f), "sys.sysv_shm.orphaned")->severity, Severity::info);
}

// `check --collectives` leaves cuInit to the pass's workers: no "not initialised" note then; without the
// pass the note says how to test CUDA.
TEST(NodeRules, CudaNotProbedIsQuietWhenThePassTestsIt) {
  auto f = healthy();
  f.cuda.init_probed = false;
  f.cuda.driver_loaded = false;
  EXPECT_NE(find(run(cuda_driver_rule(), f), "cuda.driver_not_probed"), nullptr);
  CheckOptions o;
  o.collective_pass = true;
  EXPECT_TRUE(run(cuda_driver_rule(), f, o).empty());
  f.cuda.driver_error = "cuInit: 802 system not yet initialized";  // probed after a failed pass: named
  f.cuda.init_probed = true;
  EXPECT_EQ(find(run(cuda_driver_rule(), f, o), "cuda.driver_unusable")->severity, Severity::fail);
}

TEST(NodeRules, CudaDriverAndProbeErrors) {
  auto f = healthy();
  f.cuda.driver_loaded = false;
  f.cuda.driver_error = "cuInit: 802 system not yet initialized";
  EXPECT_EQ(find(run(cuda_driver_rule(), f), "cuda.driver_unusable")->severity, Severity::fail);
  f.probe_errors = {"net: getifaddrs: EPERM"};
  auto v = run(probe_errors_rule(), f);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].severity, Severity::info);
}

// Hostile facts: every rule must return normally and every id it emits must be documented.
TEST(NodeRules, HostileFactsAndDocumentedIds) {
  std::set<std::string> documented;
  for (const auto& d : all_rule_docs()) {
    EXPECT_TRUE(documented.insert(d.id).second) << "duplicate doc " << d.id;
    EXPECT_FALSE(d.explanation.empty()) << d.id;
  }
  std::vector<probe::NodeFacts> cases;
  cases.push_back(probe::NodeFacts{});
  cases.push_back(healthy());
  auto h = healthy();
  for (const std::string& v :
       std::vector<std::string>{"", "=", "^", "^=", ",,", "0,,x", "::", std::string(5000, '^') + "=x:9,"}) {
    auto f = h;
    set_nccl(f, "NCCL_SOCKET_IFNAME", v);
    set_nccl(f, "NCCL_IB_HCA", v);
    set_nccl(f, "NCCL_IB_GID_INDEX", v);
    set_nccl(f, "NCCL_COMM_ID", v);
    set_nccl(f, "NCCL_SOCKET_FAMILY", v);
    set_env(f, "CUDA_VISIBLE_DEVICES", v);
    set_env(f, "GLOO_SOCKET_IFNAME", v);
    f.ib.devices = {ib_dev("mlx5_0", "Ethernet"), ib_dev("", ""), ib_dev("mlx5_bond_0", "InfiniBand", "")};
    f.gpu.p2p_read = {{}, {"OK", "OK", "OK", "OK"}};
    f.gpu.gpus[0].processes.push_back({});
    f.system.sysv_orphans.push_back({});
    f.nccl.libs.push_back({});
    f.net.interfaces.push_back(iface("", {"garbage", "/"}, {"::zz", ""}));
    cases.push_back(f);
  }
  for (size_t c = 0; c < cases.size(); c++) {
    for (int nproc : {0, 1, 64}) {
      CheckOptions o;
      o.nproc_per_node = nproc;
      std::vector<report::Finding> v;
      ASSERT_NO_THROW(v = run_node_rules(cases[c], o)) << "case " << c;
      for (const auto& f : v) {
        EXPECT_TRUE(documented.count(f.id)) << "undocumented id " << f.id;
        EXPECT_FALSE(f.title.empty()) << f.id;
        if (f.severity >= Severity::warn) {
          EXPECT_FALSE(f.fix.empty()) << f.id;
        }
      }
    }
  }
}

}  // namespace
}  // namespace dd::rules
