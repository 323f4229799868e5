// Node findings that depend on the job around the check: the hostname on one node or several, GPU processes
// of the job being checked, and a cuInit failure that CUDA_VISIBLE_DEVICES explains.
#include <gtest/gtest.h>

#include "rules/node_rules.h"
#include "rules/test_facts.h"

namespace dd::rules {
namespace {

using namespace testing;
using report::Severity;

probe::NodeFacts two_gpus() {
  probe::NodeFacts f;
  f.host.hostname = "gpu-node-1";
  f.host.fqdn = "gpu-node-1";
  f.host.resolved_addrs = {"198.18.0.10"};
  set_gpus(f, 2);
  f.net = net({lo(), iface("eth0", {"198.18.0.10/24"})});
  return f;
}

TEST(JobContext, HostnameLoopbackIsInfoOnOneNodeAndWarnWhereItMatters) {
  auto f = two_gpus();
  f.host.resolved_addrs = {"127.0.1.1"};
  auto found = run(hostname_rule(), f);
  auto* h = find(found, "host.hostname_loopback");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->severity, Severity::info);
  EXPECT_NE(h->title.find("harmless on one node"), std::string::npos) << h->title;
  CheckOptions two;
  two.nnodes = 2;
  found = run(hostname_rule(), f, two);
  h = find(found, "host.hostname_loopback");
  EXPECT_EQ(h->severity, Severity::warn);
  EXPECT_NE(h->title.find("2-node check"), std::string::npos) << h->title;
  for (auto [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"MASTER_ADDR", "gpu-node-1"}, {"SLURM_NNODES", "4"}, {"WORLD_SIZE", "16"}}) {
    auto g = f;
    set_env(g, k, v);
    if (k == "WORLD_SIZE") set_env(g, "LOCAL_WORLD_SIZE", "8");
    EXPECT_EQ(find(run(hostname_rule(), g), "host.hostname_loopback")->severity, Severity::warn) << k;
  }
  set_env(f, "MASTER_ADDR", "127.0.0.1");  // a single-node job with a loopback master: fine
  set_env(f, "WORLD_SIZE", "8");
  set_env(f, "LOCAL_WORLD_SIZE", "8");
  EXPECT_EQ(find(run(hostname_rule(), f), "host.hostname_loopback")->severity, Severity::info);
}

TEST(JobContext, GpuProcessesOfTheCheckedJobAreNeverToKill) {
  auto f = two_gpus();
  f.host.pid = 300;
  f.host.ppid = 200;
  f.host.pgid = 300;
  f.host.sid = 100;
  f.host.ancestors = {200, 150, 100};  // python rank 0 -> torchrun -> bash
  f.host.ancestor_commands = {"python train.py", "/usr/bin/python3 /usr/local/bin/torchrun train.py", "-bash"};
  // Rank 0 runs the check; rank 1 is its sibling under torchrun (150); 4242 is a leftover of another job.
  f.gpu.gpus[0].processes = {{200, "python", 30000, 150, 200, 200}};
  f.gpu.gpus[0].memory_used_mib = 30500;
  f.gpu.gpus[1].processes = {{201, "python", 30000, 150, 201, 201}, {4242, "python", 20000, 1, 4242, 4242}};
  f.gpu.gpus[1].memory_used_mib = 50600;
  auto v = run(gpu_busy_rule(), f);
  auto* own = find(v, "gpu.in_use_by_job");
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->severity, Severity::info);
  EXPECT_NE(own->title.find("pid 200 python 30000 MiB (runs this check)"), std::string::npos) << own->title;
  auto* busy = find(v, "gpu.busy");
  ASSERT_NE(busy, nullptr);
  EXPECT_NE(busy->title.find("GPU1"), std::string::npos);
  EXPECT_NE(busy->fix.find("kill 4242"), std::string::npos) << busy->fix;
  EXPECT_EQ(busy->fix.find("201"), std::string::npos) << busy->fix;
  EXPECT_EQ(busy->title.find("pid 201"), std::string::npos) << busy->title;
  // Only the job's own processes: no warning at all.
  f.gpu.gpus[1].processes.pop_back();
  f.gpu.gpus[1].memory_used_mib = 30600;
  v = run(gpu_busy_rule(), f);
  EXPECT_FALSE(has(v, "gpu.busy"));
  EXPECT_TRUE(has(v, "gpu.idle"));
  // Children of the check and distdoctor workers, and the same process group.
  f.gpu.gpus[1].processes = {{777, "distdoctor", 500, 1, 777, 777},
                             {778, "python", 500, 300, 778, 778},
                             {779, "python", 500, 42, 300, 42}};
  f.gpu.gpus[1].memory_used_mib = 1600;
  EXPECT_FALSE(has(run(gpu_busy_rule(), f), "gpu.busy"));
  // A shell is not a job: a process the same shell started (same parent, even the same process group) beside
  // the check, with no launcher above and no rank variables, is someone else's.
  auto shell = two_gpus();
  shell.host.pid = 300;
  shell.host.ppid = 100;
  shell.host.pgid = 300;
  shell.host.ancestors = {100};
  shell.host.ancestor_commands = {"-bash"};
  shell.gpu.gpus[1].processes = {{555, "python", 20000, 100, 300, 100}};
  shell.gpu.gpus[1].memory_used_mib = 20500;
  v = run(gpu_busy_rule(), shell);
  ASSERT_TRUE(has(v, "gpu.busy"));
  EXPECT_NE(find(v, "gpu.busy")->fix.find("kill 555"), std::string::npos);
  set_env(shell, "LOCAL_RANK", "0");  // the check runs as a rank of a job: its siblings are the job's
  EXPECT_FALSE(has(run(gpu_busy_rule(), shell), "gpu.busy"));
  // Without lineage facts (old records), a process is someone else's, as before.
  f.host = {};
  EXPECT_TRUE(has(run(gpu_busy_rule(), f), "gpu.busy"));
}

TEST(JobContext, DuplicateVisibleDeviceExplainsTheCuInitFailure) {
  auto f = two_gpus();
  f.cuda.driver_loaded = false;
  f.cuda.driver_error = "cuInit: 101 invalid device ordinal";
  set_env(f, "CUDA_VISIBLE_DEVICES", "0,0");
  f.cuda.visible_devices_set = true;
  f.cuda.visible_devices = "0,0";
  auto v = run_node_rules(f, {});
  auto* drv = find(v, "cuda.driver_unusable");
  ASSERT_NE(drv, nullptr);
  EXPECT_EQ(drv->severity, Severity::info);
  EXPECT_NE(drv->title.find("consequence of cuda.visible_devices.duplicate"), std::string::npos);
  EXPECT_EQ(drv->title.find("Xid"), std::string::npos);
  EXPECT_TRUE(drv->fix.empty());
  auto* dup = find(v, "cuda.visible_devices.duplicate");
  ASSERT_NE(dup, nullptr);
  EXPECT_EQ(dup->severity, Severity::fail);
  bool cuinit_in_evidence = false;
  for (const auto& e : dup->evidence)
    cuinit_in_evidence |= e == "cuda_driver_error=cuInit: 101 invalid device ordinal";
  EXPECT_TRUE(cuinit_in_evidence);
  // Without a CUDA_VISIBLE_DEVICES cause the driver is the cause.
  f.env.erase("CUDA_VISIBLE_DEVICES");
  f.cuda.visible_devices_set = false;
  EXPECT_EQ(find(run(cuda_driver_rule(), f), "cuda.driver_unusable")->severity, Severity::fail);
}

}  // namespace
}  // namespace dd::rules
