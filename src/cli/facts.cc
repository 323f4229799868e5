// `distdoctor facts`: dump what the probes read, as JSON (--json) or a short summary.
#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "probe/collect.h"
#include "probe/facts_summary.h"
#include "report/report.h"

namespace dd::cli {

Runner setup_facts(CLI::App& sub) {
  auto json = std::make_shared<bool>(false);
  auto nccl_lib = std::make_shared<std::string>();
  sub.add_flag("--json", *json, "Print the full facts record as JSON (input for `check --facts`)");
  sub.add_option("--nccl-lib", *nccl_lib, "Also inspect this libnccl.so");
  auto cuda_init = std::make_shared<bool>(false);
  sub.add_flag("--cuda-init", *cuda_init, "Also initialise CUDA (cuInit) when CUDA_VISIBLE_DEVICES is unset");
  return [json, nccl_lib, cuda_init]() -> int {
    probe::ProbeOptions po;
    po.cuda_init = *cuda_init;
    po.nccl_lib = *nccl_lib;
    probe::NodeFacts f = probe::collect_node_facts(po);
    nlohmann::json j = f;
    if (*json) {
      std::cout << j.dump(2) << "\n";
      return report::kExitPass;
    }
    probe::print_facts_summary(f, std::cout);
    return report::kExitPass;
  };
}

}  // namespace dd::cli
