// A subcommand's words sorted the way CLI11 reads them, without CLI11: the flags it knows (with the value
// each takes), the flags it does not know, and the first word that is neither (an operand: for launch, where
// the user's command starts). Pure; cli/usage_hints.cc explains a refused command line with it.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace dd::cli {

enum class FlagArity { unknown, flag, takes_value };

struct CommandWords {
  std::vector<size_t> unknown_flags;  // indexes of flags the subcommand does not know ("--colectives")
  size_t first_operand;               // index of the first operand, words.size() when there is none
};

// `arity` says what a flag name ("--tee", "-v") is. "--name=value" carries its value; a flag that takes a
// value takes the next word otherwise. "-", "-1" and words not starting with '-' are operands.
CommandWords sort_command_words(const std::vector<std::string>& words,
                                const std::function<FlagArity(const std::string&)>& arity);

// The flag a word names: "--tee=all" -> "--tee", "-v" -> "-v", "-vx" -> "-v"; "" for an operand.
std::string flag_name(const std::string& word);

}  // namespace dd::cli
