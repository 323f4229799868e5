// Finding helpers: severity names and the JSON mapping.
#include "report/finding.h"

namespace dd::report {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::ok:
      return "ok";
    case Severity::info:
      return "info";
    case Severity::warn:
      return "warn";
    case Severity::fail:
      return "fail";
  }
  return "info";
}

Severity severity_from_name(const std::string& s) {
  if (s == "ok") return Severity::ok;
  if (s == "warn") return Severity::warn;
  if (s == "fail") return Severity::fail;
  return Severity::info;
}

std::string finding_area(const Finding& f) {
  if (!f.area.empty()) return f.area;
  auto dot = f.id.find('.');
  return dot == std::string::npos ? f.id : f.id.substr(0, dot);
}

void to_json(nlohmann::json& j, const Finding& f) {
  j = nlohmann::json{
      {"id", f.id},           {"severity", severity_name(f.severity)},
      {"title", f.title},     {"evidence", f.evidence},
      {"details", f.details}, {"fix", f.fix},
      {"node", f.node},       {"rank", f.rank < 0 ? nlohmann::json(nullptr) : nlohmann::json(f.rank)}};
  if (!f.consequence_of.empty()) j["consequence_of"] = f.consequence_of;
}

void from_json(const nlohmann::json& j, Finding& f) {
  f.id = j.value("id", "");
  f.severity = severity_from_name(j.value("severity", "info"));
  f.title = j.value("title", "");
  f.evidence = j.value("evidence", std::vector<std::string>{});
  f.details = j.value("details", std::vector<std::string>{});
  f.fix = j.value("fix", "");
  f.node = j.value("node", "");
  f.rank = j.contains("rank") && j["rank"].is_number_integer() ? j["rank"].get<int>() : -1;
  f.consequence_of = j.value("consequence_of", "");
}

}  // namespace dd::report
