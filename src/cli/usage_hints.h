// What a refused command line most likely meant, said in a line or two instead of CLI11's "The following
// arguments were not expected": a mistyped command or flag gets "did you mean" (common/did_you_mean.h), and
// launch's command given without "--" gets the command line with it.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/command.h"

namespace dd::cli {

// For main() when CLI11 refuses `words` (argv after the program, up to launch's "--"; `trailing` is what
// followed it): the message for stderr, one "distdoctor ...: " line per mistake, or "" to keep CLI11's.
std::string usage_hint(const CLI::App& app, const std::vector<std::string>& words,
                       const TrailingCommand& trailing);

// The long flags of `sub` nearest to `typed` ("--colectives" -> {"--collectives"}); none for garbage.
std::vector<std::string> flag_suggestions(const CLI::App& sub, const std::string& typed);

}  // namespace dd::cli
