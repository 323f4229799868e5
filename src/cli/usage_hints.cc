// usage_hint and flag_suggestions (see usage_hints.h).
#include "cli/usage_hints.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/command_words.h"
#include "common/did_you_mean.h"
#include "common/redact.h"

namespace dd::cli {

namespace {

// A word as a shell would need it to give it back unchanged: bare when it is plain, else in single quotes.
std::string shell_word(const std::string& w) {
  const bool plain = !w.empty() && w.find_first_not_of(
                                       "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                       "0123456789_-+=/.,:@%") == std::string::npos;
  if (plain) return w;
  std::string q = "'";
  for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

FlagArity arity_in(const CLI::App& sub, const std::string& name) {
  const CLI::Option* opt = sub.get_option_no_throw(name);
  if (opt == nullptr) return FlagArity::unknown;
  return opt->get_items_expected_max() > 0 ? FlagArity::takes_value : FlagArity::flag;
}

std::vector<const CLI::App*> all_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

const CLI::App* subcommand_named(const CLI::App& app, const std::string& word) {
  for (const CLI::App* sub : all_subcommands(app))
    if (sub->check_name(word)) return sub;
  return nullptr;
}

std::string unknown_command(const CLI::App& app, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* sub : all_subcommands(app)) names.push_back(sub->get_name());
  const std::string guess = did_you_mean(closest_words(word, names));
  if (!guess.empty()) return fmt::format("distdoctor: unknown command \"{}\"; {}\n", shown(word), guess);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return fmt::format("distdoctor: unknown command \"{}\" (the commands: {})\n", shown(word), list);
}

// launch's words with "--" put before the command: "distdoctor launch OPTIONS -- CMD ARGS".
std::string launch_with_separator(const std::vector<std::string>& words, size_t command_at,
                                  const TrailingCommand& trailing) {
  std::vector<std::string> line = {"distdoctor", "launch"};
  line.insert(line.end(), words.begin(), words.begin() + static_cast<std::ptrdiff_t>(command_at));
  line.emplace_back("--");
  line.insert(line.end(), words.begin() + static_cast<std::ptrdiff_t>(command_at), words.end());
  line.insert(line.end(), trailing.words.begin(), trailing.words.end());
  std::string text;
  for (const auto& w : redact_argv(line)) text += (text.empty() ? "" : " ") + shell_word(w);
  return shown(text);
}

}  // namespace

std::vector<std::string> flag_suggestions(const CLI::App& sub, const std::string& typed) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : sub.get_options())
    for (const auto& n : opt->get_lnames()) names.push_back("--" + n);
  // One name per option: "--node.rank" is as near --node-rank as --node_rank, and they are one flag.
  std::vector<std::string> shown_names;
  std::vector<const CLI::Option*> options;
  for (auto& name : closest_words(typed, names)) {
    const CLI::Option* opt = sub.get_option_no_throw(name);
    if (std::find(options.begin(), options.end(), opt) != options.end()) continue;
    options.push_back(opt);
    shown_names.push_back(std::move(name));
  }
  return shown_names;
}

std::string usage_hint(const CLI::App& app, const std::vector<std::string>& words,
                       const TrailingCommand& trailing) {
  size_t at = 0;
  while (at < words.size() && !words[at].empty() && words[at][0] == '-') ++at;
  if (at == words.size()) return "";  // no command given: CLI11 says so
  const CLI::App* sub = subcommand_named(app, words[at]);
  if (sub == nullptr) return unknown_command(app, words[at]);
  const std::vector<std::string> rest(words.begin() + static_cast<std::ptrdiff_t>(at) + 1, words.end());
  const CommandWords sorted =
      sort_command_words(rest, [sub](const std::string& name) { return arity_in(*sub, name); });
  const bool launch = sub->get_name() == "launch";
  std::string said;
  for (size_t i : sorted.unknown_flags) {
    if (launch && i > sorted.first_operand) break;  // the user's command's own flags
    const std::string name = flag_name(rest[i]);
    const std::string guess = name.rfind("--", 0) == 0 ? did_you_mean(flag_suggestions(*sub, name)) : "";
    said += fmt::format(
        "distdoctor {}: unknown flag {}{}\n", sub->get_name(), shown(name),
        guess.empty() ? fmt::format(" (distdoctor {} --help lists them)", sub->get_name()) : "; " + guess);
  }
  if (said.empty() && launch && sorted.first_operand < rest.size())
    said = fmt::format("distdoctor launch: the command to run goes after --:\n  {}\n",
                       launch_with_separator(rest, sorted.first_operand, trailing));
  return said;
}

}  // namespace dd::cli
