// NodeFacts: everything the probes read about one node, as plain data that round-trips through JSON.
// Probes fill it, rules read it; `distdoctor facts --json` dumps it and `check --facts FILE` reloads it.
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dd::probe {

struct HostFacts {
  std::string hostname;
  std::string fqdn;
  std::vector<std::string> resolved_addrs;  // what getaddrinfo(hostname) returns
  std::string kernel;                       // uname -r
  std::string container;                    // "none", "docker", "kubernetes", "other"
  std::string distdoctor_version;
  int64_t pid = 0;
  int64_t ppid = 0;                // parent of this process (0 unknown)
  int64_t pgid = 0;                // process group
  int64_t sid = 0;                 // session
  std::vector<int64_t> ancestors;  // parent, grandparent, ... (without pid 1): the job that ran the check
  std::vector<std::string> ancestor_commands;  // each ancestor's command line (argv joined by spaces, cut at
                                               // 200 bytes; "" unreadable): a launcher or only a shell?
  std::string boot_id;                         // /proc/sys/kernel/random/boot_id (same = same running kernel)
  std::string netns;                           // /proc/self/ns/net link, "net:[4026531992]"
};

struct GpuProcess {
  int64_t pid = 0;
  std::string name;
  int64_t used_mib = -1;
  int64_t ppid = 0;  // from /proc/PID/stat; 0 when unreadable (another PID namespace)
  int64_t pgid = 0;
  int64_t sid = 0;
};

struct Gpu {
  int index = 0;  // NVML index (ignores CUDA_VISIBLE_DEVICES)
  std::string name;
  std::string uuid;
  std::string pci_bus_id;  // "00000000:18:00.0"
  int64_t memory_total_mib = -1;
  int64_t memory_used_mib = -1;      // allocated by processes (the driver's reservation left out when known)
  int64_t memory_reserved_mib = -1;  // what the driver keeps for itself (NVML v2), -1 unknown
  int utilization_pct = -1;
  std::vector<GpuProcess> processes;  // compute processes
  int ecc_enabled = -1;               // 1/0, -1 unknown
  int64_t ecc_uncorrected_volatile = -1;
  int64_t ecc_uncorrected_aggregate = -1;
  int retired_pages_pending = -1;  // 1 yes, 0 no, -1 unknown/not supported
  int remapped_rows_pending = -1;
  int remapped_rows_failure = -1;
  int mig_mode = -1;                   // 1 enabled, 0 disabled, -1 unsupported
  std::vector<std::string> mig_uuids;  // "MIG-..." of each MIG device when MIG is on
  int nvlinks_active = -1;             // -1 unknown
  int nvlinks_total = -1;
  int nvlink_version = -1;
  int pcie_gen = -1;
  int pcie_width = -1;
  int pcie_gen_max = -1;  // what the link could do (current gen drops when the GPU idles)
  int pcie_width_max = -1;
  int numa_node = -1;
  std::string cpu_affinity;  // "0-55,112-167"
};

struct GpuFacts {
  bool nvml_loaded = false;
  std::string nvml_error;        // why NVML could not be used
  std::string nvml_library;      // path dlopen'ed
  std::string driver_version;    // "570.86.15"
  int cuda_driver_version = -1;  // 12080 = 12.8
  std::vector<Gpu> gpus;
  // P2P status between GPU i and j as nvidia-smi topo -p2p r prints it: "X", "OK", "NS", "CNS", "GNS", "TNS",
  // "U".
  std::vector<std::vector<std::string>> p2p_read;
  // Topology as nvidia-smi topo -m prints it: "X", "NV18", "SYS", "NODE", "PHB", "PXB", "PIX".
  std::vector<std::vector<std::string>> topology;
};

struct CudaFacts {
  bool visible_devices_set = false;
  std::string visible_devices;  // raw CUDA_VISIBLE_DEVICES
  bool driver_loaded = false;   // libcuda.so.1 could be loaded and cuInit succeeded
  std::string driver_error;
  int device_count = -1;    // what cuDeviceGetCount returns under the current CUDA_VISIBLE_DEVICES
  bool init_probed = true;  // cuInit was tried (only with --cuda-init or for a collective pass: ~0.5 s)
};

struct NcclLib {
  std::string path;       // resolved real path
  std::string source;     // "loader", "LD_LIBRARY_PATH", "site-packages", "cuda", "system", "--nccl-lib"
  int version_code = -1;  // ncclGetVersion: 22809
  std::string version;    // "2.28.9"
  std::string error;      // dlopen/dlsym failure
};

struct EnvSetting {
  std::string value;
  std::string source;  // "env", "/etc/nccl.conf", "~/.nccl.conf" (path as read)
};

struct NcclFacts {
  std::vector<NcclLib> libs;
  std::string loader_choice;                   // path the dynamic loader picks for libnccl.so.2 ("" none)
  std::map<std::string, EnvSetting> settings;  // every NCCL_* in effect, env over config files
};

struct NetInterface {
  std::string name;
  int index = 0;
  std::string kind;      // "loopback", "bridge", "docker", "veth", "bond", "vlan", "ethernet", "ipoib",
                         // "virtual", "other"
  bool up = false;       // IFF_UP
  bool running = false;  // IFF_RUNNING (carrier)
  int mtu = 0;
  int64_t speed_mbps = -1;  // /sys/class/net/X/speed; -1 unknown
  std::string mac;
  std::string master;             // bond/bridge this is enslaved to
  std::vector<std::string> ipv4;  // "198.18.0.1/24", in getifaddrs order
  std::vector<std::string> ipv6;  // "fd00::1/64"
  int order = 0;                  // position of its first address in getifaddrs order (NCCL's scan order)
};

struct NetFacts {
  std::vector<NetInterface> interfaces;  // in getifaddrs order of first address, then address-less ones
  std::string default_route_ifname;
};

struct IbGid {
  int index = 0;
  std::string gid;
  std::string type;  // "IB/RoCE v1", "RoCE v2"
  std::string netdev;
};

struct IbPort {
  int port = 1;
  std::string state;        // "ACTIVE", "DOWN", "INIT"...
  std::string phys_state;   // "LinkUp", "Disabled", ...
  std::string rate;         // "200 Gb/sec (4X HDR)"
  std::string link_layer;   // "InfiniBand" or "Ethernet"
  std::vector<IbGid> gids;  // non-zero GIDs only
};

struct IbDevice {
  std::string name;  // "mlx5_0", "mlx5_bond_0"
  std::string node_type;
  std::string fw_ver;
  std::vector<std::string> netdevs;  // associated net devices
  std::vector<IbPort> ports;
};

struct IbFacts {
  bool sysfs_present = false;  // /sys/class/infiniband exists
  std::vector<IbDevice> devices;
  // User space, read when devices exist (rdma_userspace.h); userspace_probed false in older records.
  bool userspace_probed = false;
  int dev_infiniband = -1;                   // /dev/infiniband: 1 present, 0 absent, -1 not read
  std::vector<std::string> dev_files;        // "uverbs0", "rdma_cm", ...
  std::string verbs_lib;                     // libibverbs.so.1 the loader would find; "" none
  std::vector<std::string> verbs_providers;  // provider drivers installed: "mlx5", "efa", ...
};

struct ShmSegment {
  int64_t shmid = 0;
  std::string key;
  int64_t bytes = 0;
  int64_t uid = 0;
  int64_t cpid = 0;
  int64_t nattch = 0;
};

struct SystemFacts {
  int64_t shm_total_bytes = -1;
  int64_t shm_free_bytes = -1;
  int64_t memlock_soft = -2;  // bytes; -1 = unlimited; -2 unknown
  int64_t memlock_hard = -2;
  int64_t nofile_soft = -2;
  int64_t nofile_hard = -2;
  std::vector<ShmSegment> sysv_orphans;  // nattch == 0
  bool modules_readable = false;
  std::vector<std::string> modules;  // loaded kernel modules of interest (nvidia*, nv_peer_mem, ib_*, mlx*)
};

struct NodeFacts {
  int schema = 1;
  HostFacts host;
  GpuFacts gpu;
  CudaFacts cuda;
  NcclFacts nccl;
  NetFacts net;
  IbFacts ib;
  SystemFacts system;
  std::map<std::string, std::string>
      env;  // NCCL_*, CUDA_*, GLOO_*, UCX_*, OMPI_*, launcher vars, LD_LIBRARY_PATH, PYTHONPATH
  std::vector<std::string> probe_errors;  // probes that could not read something ("net: getifaddrs: EPERM")
};

#define DD_FACTS_JSON(T, ...) NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(T, __VA_ARGS__)
DD_FACTS_JSON(HostFacts, hostname, fqdn, resolved_addrs, kernel, container, distdoctor_version, pid, boot_id,
              netns, ppid, pgid, sid, ancestors, ancestor_commands)
DD_FACTS_JSON(GpuProcess, pid, name, used_mib, ppid, pgid, sid)
DD_FACTS_JSON(Gpu, index, name, uuid, pci_bus_id, memory_total_mib, memory_used_mib, memory_reserved_mib,
              utilization_pct, processes, ecc_enabled, ecc_uncorrected_volatile, ecc_uncorrected_aggregate,
              retired_pages_pending, remapped_rows_pending, remapped_rows_failure, mig_mode, nvlinks_active,
              nvlinks_total, nvlink_version, pcie_gen, pcie_width, numa_node, cpu_affinity, pcie_gen_max,
              pcie_width_max, mig_uuids)
DD_FACTS_JSON(GpuFacts, nvml_loaded, nvml_error, nvml_library, driver_version, cuda_driver_version, gpus,
              p2p_read, topology)
DD_FACTS_JSON(CudaFacts, visible_devices_set, visible_devices, driver_loaded, driver_error, device_count,
              init_probed)
DD_FACTS_JSON(NcclLib, path, source, version_code, version, error)
DD_FACTS_JSON(EnvSetting, value, source)
DD_FACTS_JSON(NcclFacts, libs, loader_choice, settings)
DD_FACTS_JSON(NetInterface, name, index, kind, up, running, mtu, speed_mbps, mac, master, ipv4, ipv6, order)
DD_FACTS_JSON(NetFacts, interfaces, default_route_ifname)
DD_FACTS_JSON(IbGid, index, gid, type, netdev)
DD_FACTS_JSON(IbPort, port, state, phys_state, rate, link_layer, gids)
DD_FACTS_JSON(IbDevice, name, node_type, fw_ver, netdevs, ports)
DD_FACTS_JSON(IbFacts, sysfs_present, devices, userspace_probed, dev_infiniband, dev_files, verbs_lib,
              verbs_providers)
DD_FACTS_JSON(ShmSegment, shmid, key, bytes, uid, cpid, nattch)
DD_FACTS_JSON(SystemFacts, shm_total_bytes, shm_free_bytes, memlock_soft, memlock_hard, nofile_soft,
              nofile_hard, sysv_orphans, modules_readable, modules)
DD_FACTS_JSON(NodeFacts, schema, host, gpu, cuda, nccl, net, ib, system, env, probe_errors)
#undef DD_FACTS_JSON

}  // namespace dd::probe
