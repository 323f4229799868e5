// read_info_line (see info_reading.h): the line's INFO message through absorb_nccl_info into a fresh
// ProcessFacts, then the fields that message filled, in words.
#include "logs/info_reading.h"

#include <string>
#include <vector>

#include "logs/nccl_facts.h"
#include "nccl/log_line.h"

namespace dd::logs {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// "eth0 (10.10.10.1)" from "eth0:10.10.10.1".
std::string if_words(const std::string& dev) {
  std::string ifname, addr;
  split_if_addr(dev, ifname, addr);
  return addr.empty() ? ifname : ifname + " (" + addr + ")";
}

// "mlx5_0 port 1 (IB)" from "mlx5_0:1/IB"; "" when the device is not written so.
std::string hca_words(const std::string& dev) {
  const size_t colon = dev.find(':'), slash = dev.find('/');
  if (colon == std::string::npos || slash == std::string::npos || slash < colon + 2 ||
      slash + 1 >= dev.size())
    return "";
  return dev.substr(0, colon) + " port " + dev.substr(colon + 1, slash - colon - 1) + " (" +
         dev.substr(slash + 1) + ")";
}

nccl::InfoReading reading(const char* id, std::string title) {
  return {id, std::move(title), nccl::info_line_compare(id)};
}

std::optional<nccl::InfoReading> read_net_using(std::string_view msg, const ProcessFacts& p) {
  if (msg.starts_with("NET/Socket") && !p.net_devices.empty()) {
    std::vector<std::string> items;
    for (const auto& d : p.net_devices) items.push_back(if_words(d));
    return reading("nccl.line.net_socket", "NCCL's socket transport uses " + join(items));
  }
  if (msg.starts_with("NET/IB") && !p.ib_devices.empty()) {
    std::vector<std::string> items;
    for (const auto& d : p.ib_devices)
      if (std::string w = hca_words(d); !w.empty()) items.push_back(w);
    if (items.empty()) return std::nullopt;
    std::string title = "NCCL's IB transport uses " + join(items);
    if (!p.oob_if.empty()) title += "; out-of-band over " + p.oob_if + " (" + p.oob_ip + ")";
    return reading("nccl.line.net_ib", title);
  }
  return std::nullopt;
}

std::optional<nccl::InfoReading> read_message(std::string_view msg) {
  // Lines that say this process has no RDMA transport (not errors: sockets are used instead).
  if (msg.find("NET/IB : No device found") != std::string_view::npos)
    return reading("nccl.line.ib_no_device", "NCCL found no usable InfiniBand/RoCE device");
  if (msg.find("Failed to open libibverbs.so") != std::string_view::npos)
    return reading("nccl.line.ibverbs_missing", "NCCL could not load libibverbs (no RDMA transport)");
  ProcessFacts p;
  absorb_nccl_info(p, msg, Where{});
  if (auto r = read_net_using(msg, p)) return r;
  if (msg.starts_with("Bootstrap") && !p.bootstrap_if.empty() && !p.bootstrap_ip.empty())
    return reading("nccl.line.bootstrap",
                   "NCCL's bootstrap uses " + p.bootstrap_if + " (" + p.bootstrap_ip + ")");
  if (msg.starts_with("Using network ") && !p.network.empty())
    return reading("nccl.line.network", "NCCL chose the " + p.network + " network for inter-node traffic");
  if (msg.starts_with("NCCL version ") && !p.nccl_version.empty())
    return reading("nccl.line.version", "This process loaded NCCL " + p.nccl_version);
  return std::nullopt;
}

}  // namespace

std::optional<nccl::InfoReading> read_info_line(std::string_view line) {
  const nccl::NcclLine l = nccl::parse_nccl_line(line);
  if (auto r = read_message(l.msg)) return r;
  // A prefix the line grammar does not know ("[0] NCCL INFO ..."): the message after "NCCL INFO ".
  if (const size_t k = line.find("NCCL INFO "); k != std::string_view::npos)
    return read_message(line.substr(k + 10));
  return std::nullopt;
}

}  // namespace dd::logs
