// Text as it may stand in XML (the SVG charts of bench and launch): <, >, & and " escaped.
#pragma once
#include <string>
#include <string_view>

namespace dd {

inline std::string xml_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

}  // namespace dd
