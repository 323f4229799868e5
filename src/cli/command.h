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

struct CommandEntry {
  const char* name;
  const char* description;
  Runner (*setup)(CLI::App& sub);
};

// The subcommand table, in help order.
const std::vector<CommandEntry>& commands();

}  // namespace dd::cli
