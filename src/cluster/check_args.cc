// emit_options (see check_args.h): the printing half of check's options, with colour decided here.
#include "cluster/check_args.h"

#include "probe/tool_env.h"

namespace dd::cluster {

report::EmitOptions emit_options(const CheckArgs& a) {
  report::EmitOptions o;
  o.json = a.json;
  o.brief = a.brief;
  o.summary = a.summary;
  o.fail_on = a.fail_on;
  o.metrics_file = a.metrics_file;
  o.color = report::want_color(1, probe::tool_env().no_color, probe::tool_env().term);
  return o;
}

}  // namespace dd::cluster
