// `distdoctor explain ID` prints the long form of a finding id (rules, collectives, logs, the known-error
// catalogue, NCCL information lines); `explain "TEXT"` (taken verbatim) or `explain -` (text on stdin, many
// lines) explains pasted output: known errors the first cause first, then readings of NCCL information lines.
// `--list` prints every id; `--json` gives the answer as findings, as other commands do.
#include <fmt/format.h>

#include <iostream>

#include "cli/command.h"
#include "cli/finding_registry.h"
#include "cli/print_report.h"
#include "cli/verbatim_args.h"
#include "common/did_you_mean.h"
#include "common/redact.h"
#include "common/safe_text.h"
#include "logs/analyze.h"
#include "logs/catalogue.h"
#include "logs/explain_text.h"
#include "probe/stdin_text.h"
#include "report/report.h"

namespace dd::cli {

namespace {

// Everything `explain` was asked, parsed once.
struct ExplainOptions {
  bool list = false;               // --list
  bool list_ids = false;           // --list-ids (hidden): one id a line, for the shell completion
  bool json = false;               // --json
  std::vector<std::string> query;  // a finding id, the words of a pasted message, or "-" (stdin)
};

// The answer in the JSON every command prints; with no reading the verdict says "no match" (exit 1, as in the
// text), not the pass of an empty report.
void print_json(std::vector<report::Finding> findings, const std::string& no_match_message = "") {
  report::Report r;
  r.title = "distdoctor explain";
  const bool none = findings.empty();
  r.findings = std::move(findings);
  nlohmann::json extra = nlohmann::json::object();
  if (none) extra = {{"verdict", "no match"}, {"message", no_match_message}};
  show_report(r,
              {.json = true,
               .envelope = {.command = "explain", .exit_code = none ? report::kExitWarn : report::kExitPass},
               .extra = std::move(extra)});
}

int print_list(const std::vector<report::FindingDoc>& docs, const logs::Catalogue& cat, bool json) {
  nlohmann::json ids = nlohmann::json::array();
  for (const auto& d : docs) ids.push_back({{"id", d.id}, {"title", d.title}});
  for (const auto& e : cat.entries()) ids.push_back({{"id", e.id}, {"title", e.title}});
  if (json) {
    std::cout << output_json(nlohmann::json{{"ids", ids}}) << "\n";
    return report::kExitPass;
  }
  for (const auto& x : ids)
    std::cout << fmt::format("{:<36} {}\n", x["id"].get<std::string>(), x["title"].get<std::string>());
  return report::kExitPass;
}

// Every id `explain` knows: the findings', then the known errors'.
std::vector<std::string> known_ids(const std::vector<report::FindingDoc>& docs, const logs::Catalogue& cat) {
  std::vector<std::string> ids;
  for (const auto& d : docs) ids.push_back(d.id);
  for (const auto& e : cat.entries()) ids.push_back(e.id);
  return ids;
}

// A known id: its long form (as a finding with the explanation as fix, for --json).
std::optional<report::Finding> id_finding(const std::string& q, const std::vector<report::FindingDoc>& docs,
                                          const logs::Catalogue& cat) {
  for (const auto& d : docs)
    if (d.id ==
        q) {  // the explanation, and the fix where the doc gives one apart (else the explanation says)
      if (d.fix.empty()) return report::Finding{.id = d.id, .title = d.title, .fix = d.explanation};
      return report::Finding{.id = d.id, .title = d.title, .evidence = {d.explanation}, .fix = d.fix};
    }
  if (const auto* e = cat.find(q)) {
    report::Finding f{.id = e->id, .severity = e->severity, .title = e->title, .fix = e->fix};
    if (!e->cause.empty()) f.evidence.push_back("cause: " + e->cause);
    if (const auto role = logs::role_words(*e); !role.empty()) f.evidence.push_back("role: " + role);
    for (const auto& r : e->references) f.evidence.push_back("see: " + r);
    return f;
  }
  return std::nullopt;
}

void print_text(const std::vector<report::Finding>& found, const logs::Catalogue& cat, bool is_id) {
  bool first = true;
  for (const auto& f : found) {
    if (!first) std::cout << "\n----\n";
    first = false;
    const auto* e = cat.find(f.id);
    if (is_id && !e) {  // a finding id's long form: what it means, then what to do
      std::cout << f.id << ": " << f.title << "\n\n";
      if (f.evidence.empty())
        std::cout << f.fix << "\n";
      else
        std::cout << f.evidence.front() << "\n\nFix: " << f.fix << "\n";
      continue;
    }
    std::cout << (is_id ? ""
                  : e   ? "matches "
                        : "reads ")
              << f.id << " [" << report::severity_name(f.severity) << "]: " << f.title << "\n\n";
    if (e && !e->cause.empty()) std::cout << "Cause: " << e->cause << "\n\n";
    if (const auto role = e ? logs::role_words(*e) : ""; !role.empty())
      std::cout << "Role: " << role << "\n\n";
    if (!e)
      for (const auto& ev : f.evidence) std::cout << ev << "\n\n";
    if (!f.fix.empty()) std::cout << (e ? "Fix: " : "") << f.fix << "\n";
    if (e)
      for (const auto& r : e->references) std::cout << "See: " << r << "\n";
  }
}

// `explain -`: stdin up to kMaxStdinBytes and kStdinDeadline (probe/stdin_text.h); what was cut is said on
// stderr and the part read is explained (1 GB on stdin took 164 s and 2.1 GB before).
constexpr uint64_t kMaxStdinBytes = probe::kMaxConfigBytes;  // 64 MiB, as every other text a user gives
constexpr std::chrono::seconds kStdinDeadline{60};

Result<std::string> read_pasted_text() {
  auto in = probe::read_stdin({.max_bytes = kMaxStdinBytes, .deadline = kStdinDeadline});
  if (!in) return in.error();
  if (in->truncated)
    std::cerr << fmt::format(
        "distdoctor explain: stdin holds more than {} MiB: only the first {} MiB are explained (give the "
        "file to `distdoctor logs` to read all of it)\n",
        kMaxStdinBytes >> 20, kMaxStdinBytes >> 20);
  if (in->timed_out)
    std::cerr << fmt::format(
        "distdoctor explain: stdin did not end within {} s: only what came until then is explained\n",
        kStdinDeadline.count());
  return std::move(in->text);
}

// Why there is no answer: a mistyped id ("did you mean"), or a text with no reading (its start, cut).
std::string no_match_text(const std::string& q, const std::vector<report::FindingDoc>& docs,
                          const logs::Catalogue& cat) {
  if (q.find_first_of(" \t\r\n") == std::string::npos) {  // one word: a mistyped id?
    const std::string guess = did_you_mean(closest_words(q, known_ids(docs, cat)));
    if (!guess.empty()) return "no finding id \"" + shown(q) + "\"; " + guess;
  }
  constexpr size_t kShown = 80;
  std::string start = q.substr(0, std::min(q.find('\n'), kShown));
  if (start.size() < q.size()) {  // cut inside a UTF-8 character: drop its bytes
    while (!start.empty() && (static_cast<unsigned char>(start.back()) & 0xC0) == 0x80) start.pop_back();
    if (!start.empty() && static_cast<unsigned char>(start.back()) >= 0xC0) start.pop_back();
  }
  return "no reading for \"" + shown(start) + (start.size() < q.size() ? "…" : "") +
         "\".\nPaste the first error line (often above the last ones), a finding id (explain --list), or "
         "read the whole log with `distdoctor logs FILE`.";
}

int run_explain(const ExplainOptions& opt) {
  const auto docs = all_finding_docs();
  const auto& cat = logs::Catalogue::builtin();
  if (opt.list_ids) {
    for (const auto& id : known_ids(docs, cat)) std::cout << id << "\n";
    return report::kExitPass;
  }
  if (opt.list) return print_list(docs, cat, opt.json);
  if (opt.query.empty()) {
    std::cerr << "distdoctor explain: give a finding id (see --list), an error message, or - to read stdin\n";
    return report::kExitCannotRun;
  }
  std::string q;
  if (opt.query.size() == 1 && opt.query[0] == "-") {
    auto in = read_pasted_text();
    if (!in) {
      std::cerr << "distdoctor explain: " << in.error().message() << "\n";
      return report::kExitCannotRun;
    }
    q = std::move(*in);
  } else
    for (const auto& w : opt.query) q += (q.empty() ? "" : " ") + w;
  if (q.find_first_not_of(" \t\r\n") == std::string::npos) {
    std::cerr << "distdoctor explain: nothing to explain (an empty text)\n";
    return report::kExitCannotRun;
  }
  std::vector<report::Finding> found;
  bool is_id = false;
  if (auto f = id_finding(q, docs, cat)) {
    found.push_back(std::move(*f));
    is_id = true;
  } else {
    found = logs::explain_text(q, cat);
  }
  if (found.empty()) {  // a question without an answer, not a failure to run: exit 1, the text not echoed
                        // whole
    const std::string said = no_match_text(q, docs, cat);
    if (opt.json)
      print_json({}, said);
    else
      std::cerr << "distdoctor explain: " << said << "\n";
    return report::kExitWarn;
  }
  if (opt.json)
    print_json(found);
  else
    print_text(found, cat, is_id);
  return report::kExitPass;
}

}  // namespace

Runner setup_explain(CLI::App& sub) {
  auto opt = std::make_shared<ExplainOptions>();
  sub.add_flag("--list", opt->list, "List every finding id");
  sub.add_flag("--list-ids", opt->list_ids)->group("");  // packaging/distdoctor.bash completes ids from it
  sub.add_flag("--json", opt->json, "Print the answer as JSON findings (id, severity, title, evidence, fix)");
  accept_verbatim_args(sub, "ID_OR_TEXT", "a finding id, an error message, or - to read stdin");
  return [opt, &sub]() -> int {
    auto words = verbatim_args(sub);
    if (!words) {
      std::cerr << "distdoctor explain: " << words.error().message() << "\n";
      return report::kExitCannotRun;
    }
    opt->query = std::move(*words);
    return run_explain(*opt);
  };
}

}  // namespace dd::cli
