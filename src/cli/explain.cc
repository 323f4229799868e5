// `distdoctor explain ID` prints the long form of a finding id; `--list` prints every id.
#include <iostream>

#include <fmt/format.h>

#include "cli/command.h"
#include "report/report.h"
#include "rules/rule.h"

namespace dd::cli {

Runner setup_explain(CLI::App& sub) {
  auto list = std::make_shared<bool>(false);
  auto query = std::make_shared<std::vector<std::string>>();
  sub.add_flag("--list", *list, "List every finding id");
  sub.add_option("id_or_text", *query, "A finding id, or an error message to match");
  return [list, query]() -> int {
    auto docs = rules::all_rule_docs();
    if (*list) {
      for (const auto& d : docs) std::cout << fmt::format("{:<36} {}\n", d.id, d.title);
      return report::kExitPass;
    }
    if (query->empty()) {
      std::cerr << "distdoctor explain: give a finding id (see --list) or an error message\n";
      return report::kExitCannotRun;
    }
    std::string q;
    for (const auto& w : *query) q += (q.empty() ? "" : " ") + w;
    for (const auto& d : docs) {
      if (d.id == q) {
        std::cout << d.id << ": " << d.title << "\n\n" << d.explanation << "\n";
        return report::kExitPass;
      }
    }
    std::cerr << "distdoctor explain: no finding id or known error matches \"" << q << "\"\n";
    return report::kExitCannotRun;
  };
}

}  // namespace dd::cli
