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

}  // namespace

std::string summary_line(const Report& r, const std::string& command) {
  std::array<int, 4> n{};
  const Finding* worst = nullptr;
  for (const auto& f : r.findings) {
    ++n[size_t(f.severity)];
    if (!worst || f.severity > worst->severity) worst = &f;
  }
  const Verdict v = r.verdict();
  // The counts first and the id last: a long title is what gets cut, never those.
  std::string line = fmt::format("distdoctor {}: {} ({} fail, {} warn, {} pass)", command, verdict_name(v),
                                 n[size_t(Severity::fail)], n[size_t(Severity::warn)],
                                 n[size_t(Severity::ok)] + n[size_t(Severity::info)]);
  std::string id;
  if (v != Verdict::pass && worst) {
    line += fmt::format(": {}{}", worst->node.empty() ? "" : worst->node + ": ", worst->title);
    id = one_line(" [" + worst->id + "]");
    if (id.size() > kSummaryMax / 2) id.clear();  // no id is that long; the title then keeps the room
  }
  line = one_line(redact_known(line));
  if (line.size() + id.size() > kSummaryMax) {
    size_t cut = kSummaryMax - id.size() - 3;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80)
      --cut;  // not inside a UTF-8 char
    line = line.substr(0, cut) + "...";
  }
  line += id;
  return line;
}

}  // namespace dd::report
