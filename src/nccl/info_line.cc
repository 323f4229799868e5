// Readings of NCCL's init information lines (see info_line.h). Formats as NCCL prints them:
//   "NET/Socket : Using [0]eth0:10.10.10.1<0> [1]eth1:fd00::1%eth1<0>"   (net_socket.cc, after
//   ncclFindInterfaces) "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_bond_0:1/RoCE ; OOB eth0:10.0.0.1<0>"
//   (net_ib.cc) "Bootstrap : Using eth0:10.0.0.1<0>"                                   (bootstrap.cc) "Using
//   network IB" / "Using network Socket"                            (net.cc, the plugin chosen) "NCCL
//   version 2.28.9+cuda13.0"                                         (init.cc) "NET/IB : No device found."
//   and "Failed to open libibverbs.so[.1]" (net_ib.cc, ibvwrap.cc: no RDMA transport in this process)
#include "nccl/info_line.h"

#include <regex>

#include "nccl/log_line.h"

namespace dd::nccl {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// "[0]eth0:10.10.10.1<0> [1]eth1:fd00::1<0>" -> {"eth0 (10.10.10.1)", "eth1 (fd00::1)"}.
std::vector<std::string> socket_items(const std::string& s) {
  static const std::regex item(R"(\[\d+\]([^\s:\[\]]+):(\S+?)<\d+>)");
  std::vector<std::string> out;
  for (std::sregex_iterator it(s.begin(), s.end(), item), end; it != end; ++it)
    out.push_back((*it)[1].str() + " (" + (*it)[2].str() + ")");
  return out;
}

// "[0]mlx5_0:1/IB [1]mlx5_bond_0:1/RoCE" -> {"mlx5_0 port 1 (IB)", "mlx5_bond_0 port 1 (RoCE)"}.
std::vector<std::string> ib_items(const std::string& s) {
  static const std::regex item(R"(\[\d+\]([^\s:\[\]]+):(\d+)/(\w+))");
  std::vector<std::string> out;
  for (std::sregex_iterator it(s.begin(), s.end(), item), end; it != end; ++it)
    out.push_back((*it)[1].str() + " port " + (*it)[2].str() + " (" + (*it)[3].str() + ")");
  return out;
}

const char* kCompareIfs =
    "Every node should use its fast data interface, the same kind on all nodes. If this is lo, docker0 or a "
    "management port, set NCCL_SOCKET_IFNAME to the right interface on every node.";

const char* kNoRdma =
    "Normal on machines without InfiniBand or RoCE NICs: NCCL uses TCP sockets. On RDMA machines it costs "
    "most "
    "of the inter-node bandwidth: install the verbs user space (libibverbs1, ibverbs-providers / rdma-core "
    "with "
    "the mlx5 provider), pass /dev/infiniband to containers (--device=/dev/infiniband or a device plugin), "
    "and "
    "check ibv_devinfo in the job's environment.";

// Lines that say this process has no RDMA transport (not errors: sockets are used instead).
std::optional<InfoReading> read_rdma_absence(const std::string& m) {
  if (m.find("NET/IB : No device found") != std::string::npos)
    return InfoReading{"nccl.line.ib_no_device", "NCCL found no usable InfiniBand/RoCE device", kNoRdma};
  if (m.find("Failed to open libibverbs.so") != std::string::npos)
    return InfoReading{"nccl.line.ibverbs_missing", "NCCL could not load libibverbs (no RDMA transport)",
                       kNoRdma};
  return std::nullopt;
}

std::optional<InfoReading> read_message(const std::string& m) {
  static const std::regex socket_re(R"(NET/Socket\s*:\s*Using\s+(.*))"),
      ib_re(R"(NET/IB\s*:\s*Using\s+(.*))"), boot_re(R"(Bootstrap\s*:\s*Using\s+([^\s:]+):(\S+?)<\d+>)"),
      network_re(R"(Using network (\S+))"), version_re(R"(NCCL version (\S+))");
  // Each pattern holds a literal: a line with none of them (nearly every line of a pasted log) skips the
  // regex searches, which took `explain -` 13 s for 32 MiB of such lines.
  bool maybe = m.find("NET/") != std::string::npos || m.find("Bootstrap") != std::string::npos ||
               m.find("Using network") != std::string::npos || m.find("NCCL version") != std::string::npos;
  if (!maybe) return read_rdma_absence(m);
  std::smatch x;
  if (std::regex_search(m, x, socket_re)) {
    auto items = socket_items(x[1].str());
    if (items.empty()) return std::nullopt;
    return InfoReading{"nccl.line.net_socket", "NCCL's socket transport uses " + join(items), kCompareIfs};
  }
  if (std::regex_search(m, x, ib_re)) {
    std::string rest = x[1].str();
    auto items = ib_items(rest);
    if (items.empty()) return std::nullopt;
    std::string title = "NCCL's IB transport uses " + join(items);
    static const std::regex oob_re(R"(OOB\s+([^\s:]+):(\S+?)<\d+>)");
    std::smatch o;
    if (std::regex_search(rest, o, oob_re))
      title += "; out-of-band over " + o[1].str() + " (" + o[2].str() + ")";
    return InfoReading{
        "nccl.line.net_ib", title,
        "Every node should list the same HCAs and link layer (all IB or all RoCE). A node that "
        "logs NET/Socket instead has no usable HCA: check ibstat, NCCL_IB_HCA and NCCL_IB_DISABLE."};
  }
  if (std::regex_search(m, x, boot_re))
    return InfoReading{"nccl.line.bootstrap", "NCCL's bootstrap uses " + x[1].str() + " (" + x[2].str() + ")",
                       kCompareIfs};
  if (std::regex_search(m, x, network_re))
    return InfoReading{
        "nccl.line.network", "NCCL chose the " + x[1].str() + " network for inter-node traffic",
        "Every rank should log the same network. Socket where the nodes have InfiniBand or RoCE "
        "means NCCL found no usable HCA on this rank (see NET/IB lines, NCCL_IB_DISABLE)."};
  if (std::regex_search(m, x, version_re))
    return InfoReading{"nccl.line.version", "This process loaded NCCL " + x[1].str(),
                       "Every rank of a job should load the same NCCL version: compare this line across the "
                       "ranks' logs (a framework wheel may bundle its own libnccl)."};
  return read_rdma_absence(m);
}

}  // namespace

std::optional<InfoReading> read_info_line(std::string_view line) {
  NcclLine l = parse_nccl_line(line);
  if (auto r = read_message(std::string(l.msg))) return r;
  return read_message(std::string(line));  // a prefix the line grammar does not know ("[0] NCCL INFO ...")
}

const std::vector<report::FindingDoc>& info_line_docs() {
  static const std::vector<report::FindingDoc> docs = {
      {"nccl.line.net_socket", "NCCL's socket transport: the interfaces it uses",
       "NCCL INFO NET/Socket : Using [0]IF:ADDR<0> ... lists the interfaces NCCL's socket transport chose, "
       "in "
       "its order (NCCL_SOCKET_IFNAME, else the automatic order that skips docker and lo). " +
           std::string(kCompareIfs)},
      {"nccl.line.net_ib", "NCCL's IB transport: the HCAs and link layer it uses",
       "NCCL INFO NET/IB : Using [0]HCA:PORT/IB|RoCE ... ; OOB IF:ADDR lists the HCA ports NCCL uses for "
       "inter-node traffic and the interface of its out-of-band socket. Compare across nodes: the same HCAs "
       "and "
       "link layer everywhere; NCCL_IB_HCA selects them."},
      {"nccl.line.bootstrap", "NCCL's bootstrap interface",
       "NCCL INFO Bootstrap : Using IF:ADDR<0> is the interface ranks use to find each other at init. " +
           std::string(kCompareIfs)},
      {"nccl.line.network", "The network plugin NCCL chose",
       "NCCL INFO Using network IB|Socket|<plugin> names the network NCCL uses between nodes. All ranks "
       "should "
       "agree; Socket where IB exists costs most of the bandwidth."},
      {"nccl.line.version", "The NCCL version a process loaded",
       "NCCL INFO NCCL version X.Y.Z names the libnccl the process loaded. Ranks with different versions may "
       "hang or fail at init: make every node load the same one."},
      {"nccl.line.ib_no_device", "NCCL found no usable InfiniBand/RoCE device",
       "NCCL INFO NET/IB : No device found. means libibverbs listed no device this process can open: no "
       "RDMA NIC, no provider library for it, or no /dev/infiniband in the container. " +
           std::string(kNoRdma)},
      {"nccl.line.ibverbs_missing", "NCCL could not load libibverbs",
       "NCCL INFO Failed to open libibverbs.so[.1] means the verbs library is not installed or not on the "
       "loader path, so NCCL's IB transport is off. " +
           std::string(kNoRdma)},
  };
  return docs;
}

}  // namespace dd::nccl
