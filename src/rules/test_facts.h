// Test helpers for rule tests: hand-made facts (interfaces, GPUs, IB ports) and finding lookups.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "probe/facts.h"
#include "report/finding.h"
#include "rules/rule.h"

namespace dd::rules::testing {

inline probe::NetInterface iface(std::string name, std::vector<std::string> v4,
                                 std::vector<std::string> v6 = {}, bool running = true,
                                 std::string kind = "ethernet", int64_t speed = -1) {
  probe::NetInterface i;
  i.name = std::move(name);
  i.ipv4 = std::move(v4);
  i.ipv6 = std::move(v6);
  i.up = running;
  i.running = running;
  i.kind = std::move(kind);
  i.speed_mbps = speed;
  return i;
}

// Interfaces in the given order (order = position, index = position + 1).
inline probe::NetFacts net(std::vector<probe::NetInterface> ifs) {
  probe::NetFacts n;
  for (size_t k = 0; k < ifs.size(); k++) {
    ifs[k].order = static_cast<int>(k);
    ifs[k].index = static_cast<int>(k + 1);
  }
  n.interfaces = std::move(ifs);
  return n;
}

inline probe::NetInterface lo() { return iface("lo", {"127.0.0.1/8"}, {"::1/128"}, true, "loopback"); }

inline probe::Gpu gpu(int index, int nvlinks = 18) {
  probe::Gpu g;
  g.index = index;
  g.name = "NVIDIA H200";
  g.uuid = "GPU-" +
           std::string(index == 0   ? "aaaa"
                       : index == 1 ? "bbbb"
                                    : "cc") +
           std::to_string(index) + "-1111-2222-3333-444455556666";
  g.pci_bus_id = "00000000:1" + std::to_string(index) + ":00.0";
  g.memory_total_mib = 143771;
  g.memory_used_mib = 1;
  g.utilization_pct = 0;
  g.ecc_enabled = 1;
  g.ecc_uncorrected_volatile = 0;
  g.ecc_uncorrected_aggregate = 0;
  g.retired_pages_pending = 0;
  g.remapped_rows_pending = 0;
  g.remapped_rows_failure = 0;
  g.mig_mode = 0;
  g.nvlinks_active = nvlinks;
  g.nvlinks_total = 18;
  return g;
}

inline void set_gpus(probe::NodeFacts& f, int n) {
  f.gpu.nvml_loaded = true;
  f.gpu.driver_version = "570.86.15";
  f.gpu.gpus.clear();
  for (int i = 0; i < n; i++) f.gpu.gpus.push_back(gpu(i));
  f.gpu.p2p_read.assign(n, std::vector<std::string>(n, "OK"));
  for (int i = 0; i < n; i++) f.gpu.p2p_read[i][i] = "X";
}

inline probe::IbDevice ib_dev(std::string name, std::string link_layer, std::string state = "4: ACTIVE",
                              int ports = 1) {
  probe::IbDevice d;
  d.name = std::move(name);
  for (int p = 1; p <= ports; p++) {
    probe::IbPort port;
    port.port = p;
    port.state = state;
    port.link_layer = link_layer;
    if (link_layer == "Ethernet") {
      port.gids = {{0, "fe80:0000:0000:0000:0000:0000:0000:0001", "IB/RoCE v1", "eth2"},
                   {1, "fe80:0000:0000:0000:0000:0000:0000:0001", "RoCE v2", "eth2"},
                   {2, "0000:0000:0000:0000:0000:ffff:c612:0101", "IB/RoCE v1", "eth2"},
                   {3, "0000:0000:0000:0000:0000:ffff:c612:0101", "RoCE v2", "eth2"}};
    }
    d.ports.push_back(port);
  }
  return d;
}

inline void set_env(probe::NodeFacts& f, const std::string& k, const std::string& v) { f.env[k] = v; }
inline void set_nccl(probe::NodeFacts& f, const std::string& k, const std::string& v,
                     std::string src = "env") {
  f.nccl.settings[k] = {v, src};
}

inline void set_nccl_lib(probe::NodeFacts& f, const std::string& version,
                         std::string path = "/usr/lib/libnccl.so.2") {
  probe::NcclLib l;
  l.path = std::move(path);
  l.source = "loader";
  l.version = version;
  f.nccl.libs.push_back(l);
}

inline std::vector<report::Finding> run(const NodeRule& r, const probe::NodeFacts& f, CheckOptions o = {}) {
  return r.fn(f, o);
}

inline const report::Finding* find(const std::vector<report::Finding>& v, std::string_view id) {
  for (const auto& f : v)
    if (f.id == id) return &f;
  return nullptr;
}

inline bool has(const std::vector<report::Finding>& v, std::string_view id) { return find(v, id) != nullptr; }

// Value of "key=value" in a finding's evidence ("" when absent).
inline std::string evidence(const report::Finding* f, const std::string& key) {
  if (!f) return "";
  for (const auto& e : f->evidence)
    if (e.rfind(key + "=", 0) == 0) return e.substr(key.size() + 1);
  return "";
}

inline std::string evidence_any(const std::vector<report::Finding>& v, const std::string& key) {
  for (const auto& f : v) {
    auto e = evidence(&f, key);
    if (!e.empty()) return e;
  }
  return "";
}

inline report::Severity worst(const std::vector<report::Finding>& v) {
  auto s = report::Severity::ok;
  for (const auto& f : v)
    if (f.severity > s) s = f.severity;
  return s;
}

// A healthy 2xH200 NVLink node: what a clean machine's facts look like.
inline probe::NodeFacts healthy_two_gpu_node() {
  probe::NodeFacts f;
  f.host.hostname = "gpu-node-1";
  f.host.resolved_addrs = {"198.18.0.10"};
  set_gpus(f, 2);
  f.gpu.cuda_driver_version = 12080;
  f.cuda.driver_loaded = true;
  f.cuda.device_count = 2;
  set_nccl_lib(f, "2.28.9", "/usr/local/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2");
  f.net = net({lo(), iface("eth0", {"198.18.0.10/24"}, {"fe80::1/64"}, true, "ethernet", 100000),
               iface("docker0", {"198.18.9.1/24"}, {}, false, "bridge")});
  f.net.default_route_ifname = "eth0";
  f.system.shm_total_bytes = 64LL << 30;
  f.system.shm_free_bytes = 64LL << 30;
  f.system.memlock_soft = f.system.memlock_hard = -1;
  f.system.nofile_soft = f.system.nofile_hard = 1048576;
  return f;
}

}  // namespace dd::rules::testing
