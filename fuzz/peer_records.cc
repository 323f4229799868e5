// Fuzz target: the records a node reads from its peers through the store (launch: node rank 0's job settings,
// each node's hello, heartbeat, stop event and end-of-attempt record; check: a node's mesh probes and its
// cross-node collectives result), read the one way they are read
// (parse_record, common/json_limits.h). Checks: no crash or hang on any bytes (a record of the wrong shape is
// refused, not thrown out of the reader); what is read writes valid JSON and reads back to the same JSON.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/json_limits.h"
#include "common/safe_text.h"
#include "launch/hang_watch.h"
#include "launch/job_settings.h"
#include "launch/launch_facts.h"
#include "rules/cluster_collectives.h"
#include "rules/cluster_view.h"

using namespace dd;
using namespace dd::launch;

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

template <typename T>
void round_trip(std::string_view text) {
  std::string why;
  auto first = parse_record<T>(text, &why);
  if (!first) {
    check(!why.empty());
    return;
  }
  std::string written = json_text(nlohmann::json(*first));
  auto again = parse_record<T>(written);
  check(again.has_value());
  check(json_text(nlohmann::json(*again)) == written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 20)) return 0;  // the store's frame limit keeps records far smaller
  std::string_view text(reinterpret_cast<const char*>(data), size);
  round_trip<JobSettings>(text);
  round_trip<NodeHello>(text);
  round_trip<Beat>(text);
  round_trip<StopEvent>(text);
  round_trip<NodeRecord>(text);
  round_trip<std::vector<rules::MeshProbe>>(text);
  round_trip<rules::XnNodeResult>(text);
  return 0;
}
