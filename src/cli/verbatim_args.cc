// Verbatim free-text arguments (see verbatim_args.h).
#include "cli/verbatim_args.h"

#include "cli/usage_hints.h"
#include "common/did_you_mean.h"

namespace dd::cli {

void accept_verbatim_args(CLI::App& sub, const std::string& name, const std::string& help) {
  sub.allow_extras();
  sub.footer(name + ": " + help + " (taken verbatim: brackets and commas are part of the value)");
}

Result<std::vector<std::string>> verbatim_args(const CLI::App& sub) {
  std::vector<std::string> words = sub.remaining();
  for (const auto& w : words)
    if (w.size() > 1 && w[0] == '-' && !std::isdigit(static_cast<unsigned char>(w[1]))) {
      const std::string guess = did_you_mean(flag_suggestions(sub, w.substr(0, w.find('='))));
      return Error{"unknown option " + w + (guess.empty() ? " (see --help)" : "; " + guess), 0,
                   ErrorKind::invalid};
    }
  return words;
}

}  // namespace dd::cli
