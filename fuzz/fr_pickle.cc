// Fuzz target: the pickle reader and the Flight Recorder path on arbitrary bytes, as `logs` reads a dump
// file and `launch` reads another node's published summary: read_pickle, parse_flight_record, the record's
// JSON round trip, the digest and its published JSON round trip, the analysis and its findings; and, for
// JSON input, the summary reader and the analysis over it.
// Checks: no crash or hang (limits hold); the size measured before building (decode_pickle: shared memo
// values once per use) bounds what is built and stays within the limits; what decodes writes valid JSON;
// records and digests round-trip; every finding id is documented; titles and evidence hold no raw control
// byte once made printable.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "common/safe_text.h"
#include "logs/fr/fr_analysis.h"
#include "logs/fr/fr_rules.h"
#include "logs/fr/fr_summary.h"
#include "logs/fr/pickle_reader.h"

using namespace dd;
using namespace dd::logs;

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

PickleLimits fuzz_limits() {
  PickleLimits l;
  l.max_input_bytes = 1 << 20;
  l.max_nodes = 200'000;
  l.max_output_nodes = 100'000;  // a refused expansion costs its walk up to here
  l.max_output_bytes = 8 << 20;
  l.max_memo = 100'000;
  l.max_stack = 200'000;
  return l;
}

size_t json_values(const nlohmann::json& j) {  // every value of the tree, containers included
  size_t n = 1;
  if (j.is_structured())
    for (const auto& v : j) n += json_values(v);
  return n;
}

void check_findings(const FrAnalysis& a) {
  static const std::set<std::string> ids = [] {
    std::set<std::string> s;
    for (const auto& d : logs_finding_docs()) s.insert(d.id);
    return s;
  }();
  check(nlohmann::json::accept(json_text(fr_analysis_json(a))));
  for (const auto& f : fr_findings(a)) {
    check(ids.count(f.id) > 0);
    for (unsigned char c : printable(f.title)) check(c >= 0x20);
    for (const auto& e : f.evidence)
      for (unsigned char c : printable(e)) check(c >= 0x20);
  }
}

void record_path(std::string_view bytes) {
  auto r = parse_flight_record(bytes, fuzz_limits());
  if (!r) return;
  r->rank = 0;
  nlohmann::json j = *r;
  check(j.get<FlightRecord>() == *r);
  FrSummary s = summarize_flight_records({*r});
  auto back = fr_summary_from_json(nlohmann::json::parse(json_text(fr_summary_to_json(s))));
  check(back.ok() && *back == s);
  check_findings(analyze_fr_summary(s));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (auto d = decode_pickle(bytes, fuzz_limits()); d.ok()) {
    check(d->values() <= fuzz_limits().max_output_nodes && d->text_bytes() <= fuzz_limits().max_output_bytes);
    auto v = d->to_json();
    check(v.ok());  // what was measured within the limits is built within them
    check(json_values(*v) <= d->values());
    check(nlohmann::json::accept(json_text(*v)));
  }
  record_path(bytes);
  if (!bytes.empty() && bytes[0] == '{') {
    auto j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (!j.is_discarded())
      if (auto s = fr_summary_from_json(j); s.ok())
        check_findings(analyze_fr_summary(merge_fr_summaries({*s})));
  }
  return 0;
}
