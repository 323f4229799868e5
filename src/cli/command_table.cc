// The table of subcommands. Adding one: a new cli/<name>.cc with setup_<name>, and one row here.
#include <string>

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
      {"launch",
       "Run your job on every node (torchrun and Paddle env); name the rank that dies or hangs, say why, "
       "stop "
       "the rest",
       setup_launch},
  };
  return table;
}

TrailingCommand& trailing_command() {
  static TrailingCommand t;
  return t;
}

int split_trailing_command(int argc, char** argv) {
  bool launch = false;  // only `launch` takes a command; elsewhere "--" keeps its CLI11 meaning
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "launch") {
      launch = true;
    } else if (launch && std::string(argv[i]) == "--") {
      trailing_command().present = true;
      trailing_command().words.assign(argv + i + 1, argv + argc);
      return i;
    }
  return argc;
}

}  // namespace dd::cli
