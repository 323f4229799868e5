// Text rendering of the facts, one section per probe, matrices laid out like nvidia-smi topo. Every string
// read from the machine (env values, hostnames, paths, sysfs files) goes out through shown().
#include "probe/facts_summary.h"

#include <fmt/format.h>

#include "common/redact.h"
#include "common/safe_text.h"
#include "common/units.h"

namespace dd::probe {
namespace {

// A string read from the machine, made safe for a terminal.
std::string p(const std::string& s) { return shown(s); }

std::string num(int64_t v) { return v < 0 ? "?" : std::to_string(v); }

std::string limit(int64_t v) {
  if (v == -1) return "unlimited";
  if (v < 0) return "?";
  return std::to_string(v);
}

// A limit in bytes (memlock): "8 MiB", not 8388608.
std::string byte_limit(int64_t v) { return v == -1 ? "unlimited" : size_in_words(v); }

std::string bytes(int64_t v) {
  if (v < 0) return "?";
  if (v >= (int64_t(1) << 30)) return fmt::format("{:.1f} GiB", double(v) / double(int64_t(1) << 30));
  return fmt::format("{:.0f} MiB", double(v) / double(1 << 20));
}

std::string join(const std::vector<std::string>& v, const char* sep = " ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + p(x);
  return s;
}

void matrix(std::ostream& out, const char* title, const std::vector<std::vector<std::string>>& m) {
  if (m.empty()) return;
  out << "  " << title << "\n        ";
  for (size_t j = 0; j < m.size(); ++j) out << fmt::format("{:>6}", "GPU" + std::to_string(j));
  out << "\n";
  for (size_t i = 0; i < m.size(); ++i) {
    out << fmt::format("  {:<6}", "GPU" + std::to_string(i));
    for (const auto& c : m[i]) out << fmt::format("{:>6}", c.empty() ? "?" : p(c));
    out << "\n";
  }
}

void print_gpu(const Gpu& d, std::ostream& out) {
  out << fmt::format("  [{}] {} {} {}\n", d.index, p(d.name), p(d.pci_bus_id), p(d.uuid));
  out << fmt::format(
      "      memory {}/{} MiB, util {}%, ECC {} (uncorrected volatile {}, aggregate {}), "
      "retired pending {}, row remap pending {} failure {}, MIG {}\n",
      num(d.memory_used_mib), num(d.memory_total_mib), num(d.utilization_pct),
      d.ecc_enabled < 0 ? "?"
      : d.ecc_enabled   ? "on"
                        : "off",
      num(d.ecc_uncorrected_volatile), num(d.ecc_uncorrected_aggregate), num(d.retired_pages_pending),
      num(d.remapped_rows_pending), num(d.remapped_rows_failure), num(d.mig_mode));
  out << fmt::format("      NVLink {}/{} active (v{}), PCIe gen {}/{} x{}/{}, NUMA {}, CPUs {}\n",
                     num(d.nvlinks_active), num(d.nvlinks_total), num(d.nvlink_version), num(d.pcie_gen),
                     num(d.pcie_gen_max), num(d.pcie_width), num(d.pcie_width_max), d.numa_node,
                     d.cpu_affinity.empty() ? "?" : p(d.cpu_affinity));
  for (const auto& proc : d.processes)
    out << fmt::format("      process {} {} {} MiB\n", proc.pid, proc.name.empty() ? "?" : p(proc.name),
                       num(proc.used_mib));
}

// Hostname, fqdn, resolution, kernel, container.
void print_host(const NodeFacts& f, std::ostream& out) {
  const auto& h = f.host;
  out << fmt::format("Host     {} (fqdn {}, resolves to {}), kernel {}, container {}\n", p(h.hostname),
                     p(h.fqdn), h.resolved_addrs.empty() ? "nothing" : join(h.resolved_addrs, ", "),
                     p(h.kernel), p(h.container));
}

// NVML, driver, each GPU, the P2P and topology matrices.
void print_gpus(const NodeFacts& f, std::ostream& out) {
  const auto& g = f.gpu;
  if (!g.nvml_loaded) {
    out << "GPUs     NVML unavailable: " << p(g.nvml_error) << "\n";
  } else {
    out << fmt::format("GPUs     {} via {}, driver {}, CUDA driver {}.{}\n", g.gpus.size(), p(g.nvml_library),
                       p(g.driver_version), g.cuda_driver_version / 1000,
                       (g.cuda_driver_version % 1000) / 10);
    for (const auto& d : g.gpus) print_gpu(d, out);
    matrix(out, "P2P read (nvidia-smi topo -p2p r)", g.p2p_read);
    matrix(out, "Topology (nvidia-smi topo -m)", g.topology);
  }
}

// CUDA_VISIBLE_DEVICES and the driver's device count.
void print_cuda(const NodeFacts& f, std::ostream& out) {
  const auto& c = f.cuda;
  out << fmt::format("CUDA     CUDA_VISIBLE_DEVICES={}, driver sees {} device(s){}\n",
                     c.visible_devices_set ? "\"" + p(c.visible_devices) + "\"" : "(unset)",
                     num(c.device_count), c.driver_error.empty() ? "" : " — " + p(c.driver_error));
}

// The library the loader picks, every candidate, every NCCL_* setting.
void print_nccl(const NodeFacts& f, std::ostream& out) {
  out << "NCCL     loader picks " << (f.nccl.loader_choice.empty() ? "nothing" : p(f.nccl.loader_choice))
      << "\n";
  for (const auto& l : f.nccl.libs)
    out << fmt::format("  {:<8} {} ({}){}\n", l.version.empty() ? "?" : p(l.version), p(l.path), p(l.source),
                       l.error.empty() ? "" : " — " + p(l.error));
  for (const auto& [k, s] : f.nccl.settings)
    out << fmt::format("  {}={} (from {})\n", p(k), p(s.value), p(s.source));
}

// Default route and interfaces.
void print_network(const NodeFacts& f, std::ostream& out) {
  out << "Network  default route via "
      << (f.net.default_route_ifname.empty() ? "none" : p(f.net.default_route_ifname)) << "\n";
  for (const auto& i : f.net.interfaces) {
    std::string addrs = join(i.ipv4);
    if (!i.ipv6.empty()) addrs += (addrs.empty() ? "" : " ") + join(i.ipv6);
    out << fmt::format(
        "  {:<16} {:<9} {:<4}{:<8} mtu {:<5} {:>7} {}{}\n", p(i.name), p(i.kind), i.up ? "up" : "down",
        i.running ? " running" : "", i.mtu, i.speed_mbps < 0 ? "" : std::to_string(i.speed_mbps) + "Mb",
        addrs.empty() ? "(no address)" : addrs, i.master.empty() ? "" : " master " + p(i.master));
  }
}

// RDMA devices, ports and GIDs.
void print_rdma(const NodeFacts& f, std::ostream& out) {
  if (f.ib.devices.empty())
    out << "RDMA     " << (f.ib.sysfs_present ? "no devices" : "no /sys/class/infiniband") << "\n";
  for (const auto& d : f.ib.devices) {
    out << fmt::format("RDMA     {} {} fw {} netdevs {}\n", p(d.name), p(d.node_type), p(d.fw_ver),
                       d.netdevs.empty() ? "-" : join(d.netdevs, ","));
    for (const auto& port : d.ports) {
      out << fmt::format("  port {} {} {} {} {}\n", port.port, p(port.state), p(port.phys_state),
                         p(port.link_layer), p(port.rate));
      for (const auto& gid : port.gids)
        out << fmt::format("    gid[{}] {} {} {}\n", gid.index, p(gid.gid), p(gid.type), p(gid.netdev));
    }
  }
}

// /dev/shm, limits, modules, orphaned SysV segments.
void print_system(const NodeFacts& f, std::ostream& out) {
  const auto& s = f.system;
  out << fmt::format("System   /dev/shm {} ({} free), memlock {}/{}, nofile {}/{}\n",
                     bytes(s.shm_total_bytes), bytes(s.shm_free_bytes), byte_limit(s.memlock_soft),
                     byte_limit(s.memlock_hard), limit(s.nofile_soft), limit(s.nofile_hard));
  out << fmt::format("  modules: {}\n", s.modules_readable
                                            ? (s.modules.empty() ? "none of interest" : join(s.modules))
                                            : "unreadable");
  for (const auto& o : s.sysv_orphans)
    out << fmt::format("  orphaned SysV shm id {} key {} {} created by pid {}\n", o.shmid, p(o.key),
                       bytes(o.bytes), o.cpid);
}

// Recorded environment and probe errors.
void print_env_and_errors(const NodeFacts& f, std::ostream& out) {
  if (!f.env.empty()) {
    out << "Env\n";
    for (const auto& [k, v] : f.env) out << "  " << p(k) << "=" << p(v) << "\n";
  }
  for (const auto& e : f.probe_errors) out << "probe error: " << p(e) << "\n";
}

}  // namespace

void print_facts_summary(const NodeFacts& f, std::ostream& out) {
  print_host(f, out);
  print_gpus(f, out);
  print_cuda(f, out);
  print_nccl(f, out);
  print_network(f, out);
  print_rdma(f, out);
  print_system(f, out);
  print_env_and_errors(f, out);
}

}  // namespace dd::probe
