// Reads NCCL's own debug output (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH written through
// NCCL_DEBUG_FILE) and extracts what NCCL chose: transports per channel, network plugin and NIC,
// bootstrap interface, version, and every warning line.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "probe/fs.h"

namespace dd::comm {

struct NcclLogSummary {
  std::string version;                    // "2.28.9+cuda13.0"
  std::map<std::string, int> transports;  // "P2P/CUMEM/read" -> channel connections seen
  std::string network;                    // "Socket", "IB" (from "Using network X")
  std::vector<std::string> nics;          // "eth0:10.0.0.2", "mlx5_0:1/IB" from NET/<name> "Using"
  std::string bootstrap;                  // "eth0:10.0.0.2"
  std::vector<std::string> warnings;      // "NCCL WARN ..." lines, text after "WARN "
  int lines = 0;
};

NcclLogSummary parse_nccl_log(const std::string& text, NcclLogSummary into = {});
// Parses every file in dir whose name starts with "nccl." (one per worker process), in name order.
NcclLogSummary parse_nccl_log_dir(const std::string& dir, const probe::Fs& fs = probe::local_fs());
// "P2P" for "P2P/CUMEM/read", "NET" for "NET/Socket/0", ...
std::string transport_class(const std::string& transport);

}  // namespace dd::comm
