// explain_text: catalogue matches of a pasted text plus readings of its NCCL information lines.
#include "logs/explain_text.h"

#include <set>
#include <utility>

#include "logs/analyze.h"
#include "logs/info_reading.h"

namespace dd::logs {

std::vector<report::Finding> explain_text(std::string_view text, const Catalogue& cat) {
  std::vector<report::Finding> out = match_text(text, cat);
  std::set<std::pair<std::string, std::string>> seen;  // (id, title): one reading per distinct line meaning
  size_t line_no = 0;
  for (size_t pos = 0; pos <= text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    ++line_no;
    pos = end + 1;
    auto r = read_info_line(line);
    if (!r || !seen.emplace(r->id, r->title).second) continue;
    report::Finding f;
    f.id = r->id;
    f.severity = report::Severity::info;
    f.title = r->title;
    std::string shown(line.substr(0, 200));
    f.evidence.push_back("line " + std::to_string(line_no) + ": " + shown + (line.size() > 200 ? "…" : ""));
    f.fix = r->compare;
    f.area = "nccl";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace dd::logs
