// comm_finding: builds a finding of the collective tests (area "comm"), shared by bench and its extra passes.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "report/finding.h"

namespace dd::comm {

inline report::Finding comm_finding(const char* id, report::Severity s, std::string title,
                                    std::vector<std::string> ev = {}, std::string fix = "") {
  report::Finding f;
  f.id = id;
  f.severity = s;
  f.title = std::move(title);
  f.evidence = std::move(ev);
  f.fix = std::move(fix);
  f.area = "comm";
  return f;
}

// A failing finding of a collective run, with the rank it is about (-1 none).
inline report::Finding comm_failure(std::string id, std::string title, std::vector<std::string> ev,
                                    std::string fix, int rank = -1) {
  report::Finding f =
      comm_finding("", report::Severity::fail, std::move(title), std::move(ev), std::move(fix));
  f.id = std::move(id);
  f.rank = rank;
  return f;
}

}  // namespace dd::comm
