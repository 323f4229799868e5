// Subcommand plumbing: each cli/<name>.cc fills one CLI11 subcommand and returns the function that runs it.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace dd::cli {

using Runner = std::function<int()>;  // returns the process exit code

Runner setup_check(CLI::App& sub);
Runner setup_facts(CLI::App& sub);
Runner setup_explain(CLI::App& sub);
Runner setup_logs(CLI::App& sub);
Runner setup_bench(CLI::App& sub);
Runner setup_launch(CLI::App& sub);

struct CommandEntry {
  const char* name;
  const char* description;
  Runner (*setup)(CLI::App& sub);
};

// The words after the first "--" on the command line (launch's CMD ARGS), taken out before CLI11 parses the
// rest so that the user's command reaches the worker verbatim. main() splits argv; launch reads them.
struct TrailingCommand {
  bool present = false;  // "--" was given
  std::vector<std::string> words;
};
TrailingCommand& trailing_command();
// Splits argv at the first "--" after the word "launch" and returns the argc CLI11 should see.
int split_trailing_command(int argc, char** argv);

// The subcommand table, in help order.
const std::vector<CommandEntry>& commands();

}  // namespace dd::cli
