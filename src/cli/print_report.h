// The one way cli/ prints a report (show_report, on report::print_report: text or JSON), with colour decided
// here from the stream's terminal and NO_COLOR / TERM (probe::tool_env): lower layers return reports and
// never print them.
#pragma once
#include <iostream>

#include "report/emit.h"

namespace dd::cli {

// Colour for fd 1 or 2 as this process' environment wants it.
bool color_for(int fd);

// `o.color` is ignored: it follows color_for(out is std::cerr ? 2 : 1). An empty `o.envelope.node` is this
// host's name.
void show_report(const report::Report& r, report::PrintOptions o, std::ostream& out = std::cout);

}  // namespace dd::cli
