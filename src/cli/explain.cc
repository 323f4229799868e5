// `distdoctor explain ID` prints the long form of a finding id (rules or the known-error catalogue);
// `explain "TEXT"` matches a pasted error message against the catalogue; `--list` prints every id.
#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "comm/finding_docs.h"
#include "logs/analyze.h"
#include "logs/catalogue.h"
#include "report/report.h"
#include "rules/rule.h"

namespace dd::cli {

namespace {

void print_entry(const logs::CatalogueEntry& e, const std::vector<std::string>& captures) {
  std::cout << e.id << " [" << report::severity_name(e.severity)
            << "]: " << logs::Catalogue::render_title(e, captures) << "\n\n";
  if (!e.cause.empty()) std::cout << "Cause: " << e.cause << "\n\n";
  if (!e.fix.empty()) std::cout << "Fix: " << e.fix << "\n";
  for (const auto& r : e.references) std::cout << "See: " << r << "\n";
}

// Every finding id with a long form, from each part that emits findings: rules, collectives, log analysis.
std::vector<rules::FindingDoc> all_finding_docs() {
  std::vector<rules::FindingDoc> docs = rules::all_rule_docs();
  for (const auto& d : comm::comm_finding_docs()) docs.push_back(d);
  for (const auto& d : logs::logs_finding_docs()) docs.push_back({d.id, d.title, d.explanation});
  return docs;
}

// Everything `explain` was asked, parsed once.
struct ExplainOptions {
  bool list = false;               // --list
  std::vector<std::string> query;  // a finding id, or the words of a pasted message
};

int print_list(const std::vector<rules::FindingDoc>& docs, const logs::Catalogue& cat) {
  for (const auto& d : docs) std::cout << fmt::format("{:<36} {}\n", d.id, d.title);
  for (const auto& e : cat.entries()) std::cout << fmt::format("{:<36} {}\n", e.id, e.title);
  return report::kExitPass;
}

// Catalogue matches of pasted text, each with its entry's cause, fix and references.
void print_matches(const std::vector<report::Finding>& found, const logs::Catalogue& cat) {
  bool first = true;
  for (const auto& f : found) {
    if (!first) std::cout << "\n----\n";
    first = false;
    const auto* e = cat.find(f.id);
    // The title of the finding already has the captures filled in; print it with the entry's text.
    std::cout << "matches " << f.id << " [" << report::severity_name(f.severity) << "]: " << f.title
              << "\n\n";
    if (e && !e->cause.empty()) std::cout << "Cause: " << e->cause << "\n\n";
    if (e && !e->fix.empty()) std::cout << "Fix: " << e->fix << "\n";
    if (e)
      for (const auto& r : e->references) std::cout << "See: " << r << "\n";
  }
}

int run_explain(const ExplainOptions& opt) {
  const auto docs = all_finding_docs();
  const auto& cat = logs::Catalogue::builtin();
  if (opt.list) return print_list(docs, cat);
  if (opt.query.empty()) {
    std::cerr << "distdoctor explain: give a finding id (see --list) or an error message\n";
    return report::kExitCannotRun;
  }
  std::string q;
  for (const auto& w : opt.query) q += (q.empty() ? "" : " ") + w;
  for (const auto& d : docs) {
    if (d.id == q) {
      std::cout << d.id << ": " << d.title << "\n\n" << d.explanation << "\n";
      return report::kExitPass;
    }
  }
  if (const auto* e = cat.find(q)) {
    print_entry(*e, {});
    return report::kExitPass;
  }
  // Not an id: treat it as pasted log text.
  auto found = logs::match_text(q, cat);
  if (!found.empty()) {
    print_matches(found, cat);
    return report::kExitPass;
  }
  std::cerr << "distdoctor explain: no finding id or known error matches \"" << q << "\"\n";
  return report::kExitCannotRun;
}

}  // namespace

Runner setup_explain(CLI::App& sub) {
  auto opt = std::make_shared<ExplainOptions>();
  sub.add_flag("--list", opt->list, "List every finding id");
  sub.add_option("id_or_text", opt->query, "A finding id, or an error message to match");
  return [opt]() -> int { return run_explain(*opt); };
}

}  // namespace dd::cli
