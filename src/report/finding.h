// Finding: one conclusion of a check (stable id, severity, evidence, fix), and its JSON form.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dd::report {

enum class Severity { ok = 0, info = 1, warn = 2, fail = 3 };

const char* severity_name(Severity s);
Severity severity_from_name(const std::string& s);  // unknown -> info

struct Finding {
  std::string id;  // stable, dotted: "net.ifname.is_ip"
  Severity severity = Severity::info;
  std::string title;  // one line, specific: "NCCL_SOCKET_IFNAME holds an IP address (10.0.0.1)"
  std::vector<std::string> evidence;  // the values read that triggered it
  std::string fix;                    // what a person should do (empty for ok/info)
  std::string node;                   // hostname or node label; empty = this node
  int rank = -1;                      // rank it concerns; -1 = none/all
  std::string area;  // grouping for the text report: "gpu", "net", ... (defaults to id prefix)
  std::vector<std::string> details;  // more evidence, shown with --verbose and always in JSON
  // The id of the finding whose failure this one is part of (a consequence of it, or the same failure seen
  // from another side, folded into it); "" = none. JSON "consequence_of", only when set.
  std::string consequence_of;
};

std::string finding_area(const Finding& f);

void to_json(nlohmann::json& j, const Finding& f);
void from_json(const nlohmann::json& j, Finding& f);

}  // namespace dd::report
