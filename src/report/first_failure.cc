// The cause among several failures, and the marks of its consequences (first_failure.h).
#include "report/first_failure.h"

#include <algorithm>
#include <limits>

namespace dd::report {

namespace {

int64_t sort_time(const Failure& f) { return f.time < 0 ? std::numeric_limits<int64_t>::max() : f.time; }

// a before b: more severe, then earlier (unknown last); equal ones keep the caller's order.
bool worse_or_earlier(const Failure& a, const Failure& b) {
  if (a.severity != b.severity) return a.severity > b.severity;
  return sort_time(a) < sort_time(b);
}

}  // namespace

std::optional<size_t> first_failure(const std::vector<Failure>& v, FirstFailureRule rule) {
  if (v.empty()) return std::nullopt;
  size_t earliest = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (sort_time(v[i]) < sort_time(v[earliest])) earliest = i;
  const int64_t t0 = v[earliest].time;
  std::optional<size_t> cause;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].consequence) continue;
    const bool in_window = rule.window < 0 || v[i].time < 0 || t0 < 0 || v[i].time - t0 <= rule.window;
    if (in_window && (!cause || worse_or_earlier(v[i], v[*cause]))) cause = i;
  }
  if (cause || !rule.consequence_may_lead) return cause;
  return earliest;
}

std::string consequence_line(const Finding& cause) {
  return "consequence of " + cause.id + ": " + cause.title;
}

void mark_consequence(Finding& f, const Finding& cause, std::string_view who) {
  f.evidence.push_back(consequence_line(cause));
  f.title += " (consequence of " + std::string(who.empty() ? std::string_view(cause.id) : who) + ")";
  f.severity = std::min(f.severity, Severity::info);
  f.consequence_of = cause.id;
}

void fold_into(Finding& f, Finding& root) {
  constexpr size_t kCut = 240;
  size_t n = std::min(f.title.size(), kCut);  // cut on a UTF-8 character's first byte
  while (n > 0 && n < f.title.size() && (static_cast<unsigned char>(f.title[n]) & 0xC0) == 0x80) --n;
  const std::string said = f.title.substr(0, n) + (n < f.title.size() ? "…" : "");
  const std::string also = "also " + f.id + ": " + said;  // one line for one thing said twice
  if (std::find(root.evidence.begin(), root.evidence.end(), also) == root.evidence.end())
    root.evidence.push_back(also);
  f.evidence.push_back("same failure as " + root.id + ": " + root.title);
  f.title += " (same failure as " + root.id + ")";
  f.severity = std::min(f.severity, Severity::info);
  f.consequence_of = root.id;
}

}  // namespace dd::report
