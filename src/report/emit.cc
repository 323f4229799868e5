// print_report and emit_check_report (see emit.h).
#include "report/emit.h"

#include "common/atomic_file.h"
#include "common/redact.h"
#include "common/wall_clock.h"
#include "report/metrics.h"
#include "report/summary_line.h"

namespace dd::report {

int exit_code_for(Verdict v, FailOn fail_on) {
  if (v == Verdict::fail) return kExitFail;
  if (v == Verdict::warn && fail_on == FailOn::warn) return kExitWarn;
  return kExitPass;
}

void print_report(const Report& r, const PrintOptions& o, std::ostream& out) {
  if (o.json) {
    nlohmann::json j = render_json(r);
    for (const auto& [k, v] : o.extra.items()) j[k] = v;
    out << output_json(std::move(j)) << "\n";
  } else {
    TextOptions to;
    to.color = o.color;
    to.show_ok = to.show_info = !o.brief;
    to.verbose = o.verbose;
    render_text(r, out, to);
  }
  out.flush();
}

int emit_check_report(const Report& r, const EmitOptions& o, std::ostream& out, std::ostream& err) {
  if (o.summary) {
    out << summary_line(r, "check") << "\n";
  } else {
    print_report(r, {.json = o.json, .brief = o.brief, .color = o.color}, out);
  }
  out.flush();
  int rc = exit_code_for(r.verdict(), o.fail_on);
  if (!o.metrics_file.empty()) {
    nlohmann::json j = render_json(r);
    redact_json(j);
    auto written = write_file_atomically(o.metrics_file, check_metrics(j, unix_seconds_now()));
    if (!written) {
      err << "distdoctor check: --metrics: " << shown(written.error().message()) << "\n";
      rc = kExitCannotRun;
    }
  }
  return rc;
}

}  // namespace dd::report
