// sort_command_words (see command_words.h).
#include "cli/command_words.h"

#include <cctype>

namespace dd::cli {

std::string flag_name(const std::string& word) {
  if (word.size() < 2 || word[0] != '-' || std::isdigit(static_cast<unsigned char>(word[1])) ||
      word[1] == '.')
    return "";
  if (word[1] != '-') return word.substr(0, 2);
  if (word.size() == 2) return "";  // "--" itself
  return word.substr(0, word.find('='));
}

CommandWords sort_command_words(const std::vector<std::string>& words,
                                const std::function<FlagArity(const std::string&)>& arity) {
  CommandWords out{{}, words.size()};
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string name = flag_name(words[i]);
    if (name.empty()) {
      if (out.first_operand == words.size()) out.first_operand = i;
      continue;
    }
    const FlagArity a = arity(name);
    if (a == FlagArity::unknown) {
      out.unknown_flags.push_back(i);
    } else if (a == FlagArity::takes_value && name.size() == words[i].size()) {
      ++i;  // its value, whatever it looks like
    }
  }
  return out;
}

}  // namespace dd::cli
