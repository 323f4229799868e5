// Text renderer: findings grouped by area, one line each with a mark, the fix under warn/fail, a verdict
// line. Every string of a finding may hold bytes from outside (env values, hostnames, log lines): they go
// out through shown(), so no control character or escape sequence reaches the terminal.
#include <fmt/format.h>
#include <unistd.h>

#include <map>
#include <set>

#include "common/redact.h"
#include "common/safe_text.h"
#include "report/report.h"

namespace dd::report {

bool want_color(int fd, bool no_color, const std::string& term) {
  if (no_color || term == "dumb") return false;
  return isatty(fd) == 1;
}

namespace {

struct Style {
  bool on;
  std::string c(const char* code, const std::string& s) const {
    return on ? fmt::format("\033[{}m{}\033[0m", code, s) : s;
  }
};

std::string mark(Severity s, const Style& st) {
  switch (s) {
    case Severity::ok:
      return st.c("32", "[ ok ]");
    case Severity::info:
      return st.c("36", "[info]");
    case Severity::warn:
      return st.c("33", "[warn]");
    case Severity::fail:
      return st.c("1;31", "[FAIL]");
  }
  return "[    ]";
}

// Names the node only when the report spans several nodes: a single-node report says which node in its title.
std::string who(const Finding& f, bool many_nodes) {
  std::string node = many_nodes ? shown(f.node) : "";
  if (node.empty() && f.rank < 0) return "";
  if (f.rank < 0) return fmt::format(" ({})", node);
  if (node.empty()) return fmt::format(" (rank {})", f.rank);
  return fmt::format(" ({}, rank {})", node, f.rank);
}

// The answer before the details, on one line: the first finding at the verdict's severity (for `logs` and
// `launch`, whose findings come root cause first, the root cause) and how many more there are. Nothing on a
// pass. The verdict itself stays the report's one last line ("verdict: ..."), which scripts grep for.
void headline(const Report& r, std::ostream& out, const Style& st) {
  const Verdict v = r.verdict();
  if (v == Verdict::pass) return;
  const Severity worst = v == Verdict::fail ? Severity::fail : Severity::warn;
  const Finding* first = nullptr;
  size_t same = 0;
  for (const auto& f : r.findings)
    if (f.severity == worst && same++ == 0) first = &f;
  if (!first) return;
  std::set<std::string> nodes;
  for (const auto& f : r.findings)
    if (!f.node.empty()) nodes.insert(f.node);
  const char* more =
      v == Verdict::fail ? (same == 2 ? "failure" : "failures") : (same == 2 ? "warning" : "warnings");
  out << st.c(v == Verdict::fail ? "1;31" : "1;33",
              fmt::format("{}: {}", v == Verdict::fail ? "root cause" : "first warning",
                          shown(first->title) + who(*first, nodes.size() > 1)))
      << "  " << st.c("2", shown(first->id))
      << (same > 1 ? fmt::format("  (and {} more {} below)", same - 1, more) : "") << "\n";
}

}  // namespace

void render_text(const Report& r, std::ostream& out, const TextOptions& opt) {
  Style st{opt.color};
  if (!r.title.empty()) out << st.c("1", shown(r.title)) << "\n";
  for (const auto& n : r.notes) out << "  " << shown(n) << "\n";
  headline(r, out, st);
  // Keep areas in order of first appearance so the report follows the probe order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Finding*>> by_area;
  for (const auto& f : r.findings) {
    auto a = finding_area(f);
    if (!by_area.count(a)) order.push_back(a);
    by_area[a].push_back(&f);
  }
  std::set<std::string> nodes;
  for (const auto& f : r.findings)
    if (!f.node.empty()) nodes.insert(f.node);
  const bool many_nodes = nodes.size() > 1;
  int counts[4] = {0, 0, 0, 0};
  for (const auto& a : order) {
    bool header = false;
    for (const Finding* f : by_area[a]) {
      counts[static_cast<int>(f->severity)]++;
      if (f->severity == Severity::ok && !opt.show_ok) continue;
      if (f->severity == Severity::info && !opt.show_info) continue;
      if (!header) {
        out << "\n" << st.c("1", shown(a)) << "\n";
        header = true;
      }
      out << "  " << mark(f->severity, st) << " " << shown(f->title) << who(*f, many_nodes) << "  "
          << st.c("2", shown(f->id)) << "\n";
      if (f->severity >= Severity::warn) {
        for (const auto& e : f->evidence) out << "         " << st.c("2", "evidence: ") << shown(e) << "\n";
        if (opt.verbose)
          for (const auto& e : f->details) out << "         " << st.c("2", "detail: ") << shown(e) << "\n";
        else if (!f->details.empty())
          out << "         "
              << st.c("2", fmt::format("({} more lines: --verbose, or --json)", f->details.size())) << "\n";
        if (!f->fix.empty()) out << "         " << st.c("1", "fix: ") << shown(f->fix) << "\n";
      }
    }
  }
  if (!opt.verdict_line) return;
  Verdict v = r.verdict();
  const char* color = v == Verdict::pass ? "1;32" : v == Verdict::warn ? "1;33" : "1;31";
  out << "\n"
      << st.c(color, fmt::format("verdict: {}", verdict_name(v)))
      << fmt::format("  ({} fail, {} warn, {} info, {} ok)", counts[3], counts[2], counts[1], counts[0]);
  if (v != Verdict::pass) out << "  — `distdoctor explain ID` for details";
  out << "\n";
}

}  // namespace dd::report
