// show_report and color_for (see print_report.h).
#include "cli/print_report.h"

#include "probe/host_probe.h"
#include "probe/tool_env.h"

namespace dd::cli {

bool color_for(int fd) { return report::want_color(fd, probe::tool_env().no_color, probe::tool_env().term); }

void show_report(const report::Report& r, report::PrintOptions o, std::ostream& out) {
  o.color = color_for(&out == &std::cerr ? 2 : 1);
  if (o.envelope.node.empty()) o.envelope.node = probe::host_name();
  report::print_report(r, o, out);
}

}  // namespace dd::cli
