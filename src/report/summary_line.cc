// summary_line (see summary_line.h).
#include "report/summary_line.h"

#include <fmt/format.h>

#include <array>

#include "common/redact.h"

namespace dd::report {

namespace {

// Printable and single-line, safe inside reason="..." in a shell script: a double quote becomes a single one,
// and `, \ and $ (which a shell expands there) and control bytes become spaces.
std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    out += c == '"' ? '\'' : (u < 0x20 || u == 0x7f || c == '`' || c == '\\' || c == '$') ? ' ' : c;
  }
  return out;
}

std::string counts(const std::array<int, 4>& n, const char* const* names, int from, int to) {
  std::string out;
  for (int s = from; s >= to; --s)
    if (n[size_t(s)] > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n[size_t(s)], names[s]);
  return out;
}

}  // namespace

std::string summary_line(const Report& r, const std::string& command) {
  static const char* const kNames[] = {"ok", "info", "warn", "fail"};
  std::array<int, 4> n{};
  const Finding* worst = nullptr;
  for (const auto& f : r.findings) {
    ++n[size_t(f.severity)];
    if (!worst || f.severity > worst->severity) worst = &f;
  }
  const Verdict v = r.verdict();
  std::string line = fmt::format("distdoctor {}: {}", command, verdict_name(v));
  if (v == Verdict::pass || !worst) {
    const std::string c = counts(n, kNames, 1, 0);
    line += c.empty() ? "" : " (" + c + ")";
  } else {
    std::array<int, 4> rest = n;
    --rest[size_t(worst->severity)];
    const std::string where = worst->node.empty() ? "" : worst->node + ": ";
    line += fmt::format(": {}{} [{}]", where, worst->title, worst->id);
    const std::string c = counts(rest, kNames, 3, 2);
    if (!c.empty()) line += "; +" + c;
  }
  line = one_line(redact_known(line));
  if (line.size() > kSummaryMax) {
    size_t cut = kSummaryMax - 3;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80)
      --cut;  // not inside a UTF-8 char
    line = line.substr(0, cut) + "...";
  }
  return line;
}

}  // namespace dd::report
