// `distdoctor facts`: dump what the probes read, as JSON (--json) or a short summary.
#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "probe/collect.h"
#include "probe/facts_summary.h"
#include "report/report.h"

namespace dd::cli {

namespace {

// Everything `facts` was asked, parsed once: the probe options as collect_node_facts takes them, and --json.
struct FactsOptions {
  probe::ProbeOptions probe;  // --nccl-lib, --cuda-init
  bool json = false;
};

int run_facts(const FactsOptions& opt) {
  probe::NodeFacts f = probe::collect_node_facts(opt.probe);
  if (opt.json) {
    std::cout << output_json(nlohmann::json(f)) << "\n";
    return report::kExitPass;
  }
  probe::print_facts_summary(f, std::cout);
  return report::kExitPass;
}

}  // namespace

Runner setup_facts(CLI::App& sub) {
  auto opt = std::make_shared<FactsOptions>();
  sub.add_flag("--json", opt->json, "Print the full facts record as JSON (input for `check --facts`)");
  sub.add_option("--nccl-lib", opt->probe.nccl_lib, "Also inspect this libnccl.so")->type_name("FILE");
  sub.add_flag("--cuda-init", opt->probe.cuda_init,
               "Also initialise CUDA (cuInit) and read its device count");
  return [opt]() -> int { return run_facts(*opt); };
}

}  // namespace dd::cli
