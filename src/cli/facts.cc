// `distdoctor facts`: dump what the probes read, as JSON (--json) or a short summary.
#include <iostream>

#include <fmt/format.h>

#include "cli/command.h"
#include "probe/collect.h"
#include "report/report.h"

namespace dd::cli {

Runner setup_facts(CLI::App& sub) {
  auto json = std::make_shared<bool>(false);
  auto nccl_lib = std::make_shared<std::string>();
  sub.add_flag("--json", *json, "Print the full facts record as JSON (input for `check --facts`)");
  sub.add_option("--nccl-lib", *nccl_lib, "Also inspect this libnccl.so");
  return [json, nccl_lib]() -> int {
    probe::ProbeOptions po;
    po.nccl_lib = *nccl_lib;
    probe::NodeFacts f = probe::collect_node_facts(po);
    nlohmann::json j = f;
    if (*json) {
      std::cout << j.dump(2) << "\n";
      return report::kExitPass;
    }
    std::cout << fmt::format("host {} ({}), kernel {}, container {}\n", f.host.hostname, f.host.fqdn,
                             f.host.kernel, f.host.container);
    std::cout << fmt::format("gpus {} driver {}\n", f.gpu.gpus.size(), f.gpu.driver_version);
    for (const auto& g : f.gpu.gpus)
      std::cout << fmt::format("  [{}] {} {} {}/{} MiB\n", g.index, g.name, g.pci_bus_id, g.memory_used_mib,
                               g.memory_total_mib);
    for (const auto& l : f.nccl.libs)
      std::cout << fmt::format("nccl {} {} ({})\n", l.version.empty() ? "?" : l.version, l.path, l.source);
    for (const auto& i : f.net.interfaces) {
      std::string addrs;
      for (const auto& a : i.ipv4) addrs += " " + a;
      for (const auto& a : i.ipv6) addrs += " " + a;
      std::cout << fmt::format("if {} {} {}{}\n", i.name, i.kind, i.up ? "up" : "down", addrs);
    }
    for (const auto& e : f.probe_errors) std::cout << "probe error: " << e << "\n";
    return report::kExitPass;
  };
}

}  // namespace dd::cli
