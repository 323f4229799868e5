// Free-text command-line values (pasted messages, log paths) taken exactly as given: CLI11 would read a
// positional "[a, b] c" as a list and split it, so these subcommands collect them as raw extra arguments.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/result.h"

namespace dd::cli {

// Call at set-up: the subcommand keeps the words it does not know, unparsed, for verbatim_args().
void accept_verbatim_args(CLI::App& sub, const std::string& name, const std::string& help);

// After parsing: the words in order, verbatim. A word that looks like an option ("--x", "-x") is an error
// (an unknown flag, not text); "-" alone is kept (stdin).
Result<std::vector<std::string>> verbatim_args(const CLI::App& sub);

}  // namespace dd::cli
