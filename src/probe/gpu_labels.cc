// nvidia-smi-style labels and small conversions used by the GPU probe.
#include "probe/gpu_labels.h"

#include <cctype>
#include <climits>

namespace dd::probe {

std::string p2p_status_label(int status) {
  switch (status) {
    case 0:
      return "OK";  // NVML_P2P_STATUS_OK
    case 1:
      return "CNS";  // CHIPSET_NOT_SUPPORTED
    case 2:
      return "GNS";  // GPU_NOT_SUPPORTED
    case 3:
      return "TNS";  // IOH_TOPOLOGY_NOT_SUPPORTED
    case 4:
      return "NS";  // DISABLED_BY_REGKEY
    case 5:
      return "NS";  // NOT_SUPPORTED
    default:
      return "U";  // UNKNOWN or anything newer
  }
}

std::string topology_label(int nvml_level, int nvlinks) {
  if (nvlinks > 0) return "NV" + std::to_string(nvlinks);
  switch (nvml_level) {
    case 0:
    case 10:
      return "PIX";
    case 20:
      return "PXB";
    case 30:
      return "PHB";
    case 40:
      return "NODE";
    case 50:
      return "SYS";
    default:
      return "";
  }
}

std::string cpu_list_from_mask(const std::vector<unsigned long>& words) {
  const int bits = int(sizeof(unsigned long) * CHAR_BIT);
  std::string out;
  int start = -1;
  const int total = int(words.size()) * bits;
  for (int c = 0; c <= total; ++c) {
    bool set = c < total && ((words[size_t(c / bits)] >> (c % bits)) & 1UL);
    if (set && start < 0) start = c;
    if (!set && start >= 0) {
      if (!out.empty()) out += ",";
      out += std::to_string(start);
      if (c - 1 > start) out += "-" + std::to_string(c - 1);
      start = -1;
    }
  }
  return out;
}

std::string normalize_bus_id(const std::string& bus_id) {
  std::string s;
  for (char ch : bus_id) s += char(std::tolower(static_cast<unsigned char>(ch)));
  auto colon = s.find(':');
  if (colon == std::string::npos) return s;
  // Bus-device.function after the domain; a legacy id without domain ("18:00.0") has two colons less one.
  if (s.find(':', colon + 1) == std::string::npos) return "0000:" + s;
  std::string dom = s.substr(0, colon);
  while (dom.size() > 4 && dom[0] == '0') dom.erase(0, 1);
  while (dom.size() < 4) dom = "0" + dom;
  return dom + s.substr(colon);
}

int nvlink_major_version(int raw, int arch) {
  switch (arch) {  // nvmlDeviceArchitecture_t
    case 5:
      return 2;  // Volta
    case 7:
      return 3;  // Ampere
    case 9:
      return 4;  // Hopper
    case 10:
      return 5;  // Blackwell
    default:
      break;
  }
  switch (raw) {  // nvmlNvlinkVersion_t
    case 1:
      return 1;
    case 2:
    case 3:
      return 2;
    case 4:
    case 5:
      return 3;
    case 6:
      return 4;
    case 7:
      return 5;
    case 8:
      return 6;
    default:
      return -1;
  }
}

}  // namespace dd::probe
