// Pure helpers for the GPU probe: nvidia-smi's labels for P2P status and topology, CPU mask formatting,
// PCI bus id normalisation, NVLink version decoding. No NVML here, so tests need no GPU.
#pragma once
#include <string>
#include <vector>

namespace dd::probe {

// nvmlGpuP2PStatus_t -> "OK", "CNS", "GNS", "TNS", "NS", "U" (as `nvidia-smi topo -p2p r` prints).
std::string p2p_status_label(int status);

// `nvidia-smi topo -m` cell: "NV<n>" when n NVLinks join the pair, else the PCIe level
// (nvmlGpuTopologyLevel_t 0/10 PIX, 20 PXB, 30 PHB, 40 NODE, 50 SYS); "" when the level is unknown (-1).
std::string topology_label(int nvml_level, int nvlinks);

// NVML CPU affinity bitmask (array of unsigned long words) -> "0-55,112-167".
std::string cpu_list_from_mask(const std::vector<unsigned long>& words);

// "00000000:18:00.0" or "0000:18:00.0" (any case) -> "0000:18:00.0", the sysfs spelling.
std::string normalize_bus_id(const std::string& bus_id);

// NVLink major version (2..6) from nvmlDeviceGetNvLinkVersion's raw value and nvmlDeviceGetArchitecture.
// The architecture wins when known (Hopper reports a 5.0 code on some drivers though its links are NVLink 4).
int nvlink_major_version(int raw, int arch);

}  // namespace dd::probe
