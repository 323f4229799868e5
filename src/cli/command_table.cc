// The table of subcommands. Adding one: a new cli/<name>.cc with setup_<name>, and one row here.
#include "cli/command.h"

namespace dd::cli {

const std::vector<CommandEntry>& commands() {
  static const std::vector<CommandEntry> table = {
      {"check", "Check this node (or every node of a job) and print a verdict with findings and fixes",
       setup_check},
      {"facts", "Print what the probes read on this node (--json for the full record)", setup_facts},
      {"explain", "Explain a finding id, or match a pasted error message", setup_explain},
      {"logs", "Read NCCL and framework logs (files, dirs, .gz, -) and say what went wrong", setup_logs},
      {"bench", "Measure collective bandwidth (NCCL or Gloo) with verified data, like nccl-tests",
       setup_bench},
  };
  return table;
}

}  // namespace dd::cli
