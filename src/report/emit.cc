// print_report and emit_check_report (see emit.h).
#include "report/emit.h"

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

nlohmann::json envelope_json(const Report& r, const Envelope& e) {
  nlohmann::json j = render_json(r);
  j["schema"] = kJsonSchema;
  j["version"] = DD_VERSION;
  j["command"] = e.command;
  j["exit_code"] = e.exit_code >= 0 ? e.exit_code : r.exit_code();
  j["node"] = e.node;
  return j;
}

void print_report(const Report& r, const PrintOptions& o, std::ostream& out) {
  if (o.json) {
    nlohmann::json j = envelope_json(r, o.envelope);
    for (const auto& [k, v] : o.extra.items()) j[k] = v;
    out << output_json(std::move(j)) << "\n";
  } else {
    TextOptions to;
    to.color = o.color;
    to.show_ok = to.show_info = !o.brief;
    to.verbose = o.verbose;
    to.verdict_line = o.verdict_line;
    render_text(r, out, to);
  }
  out.flush();
}

int emit_check_report(const Report& r, const EmitOptions& o, std::ostream& out, std::ostream& err) {
  int rc = exit_code_for(r.verdict(), o.fail_on);
  if (!o.metrics_file.empty()) {  // first: the JSON's exit_code says whether it was written
    nlohmann::json j = render_json(r);
    redact_json(j);
    const std::string text = check_metrics(j, unix_seconds_now());
    Status written =
        o.write_file ? o.write_file(o.metrics_file, text)
                     : Error::make(ErrorKind::other, "cannot write " + o.metrics_file + ": no writer given");
    if (!written) {
      err << "distdoctor check: --metrics: " << shown(written.error().message()) << "\n";
      rc = kExitCannotRun;
    }
  }
  if (o.summary) {
    out << summary_line(r, "check") << "\n";
  } else {
    Envelope e = o.envelope;
    e.exit_code = rc;
    print_report(r, {.json = o.json, .brief = o.brief, .color = o.color, .envelope = e}, out);
  }
  out.flush();
  return rc;
}

}  // namespace dd::report
