// Reading one Flight Recorder dump file: the one regular-file opener with a size cap, then the parser.
#include "logs/fr/flight_recorder.h"
#include "probe/regular_file.h"

namespace dd::logs {

Result<FlightRecord> read_flight_record_file(const std::string& path, const PickleLimits& limits) {
  probe::ReadLimits rl;
  rl.max_bytes = limits.max_input_bytes;
  rl.deadline = std::chrono::milliseconds(60'000);
  auto text = probe::read_regular_file(path, rl);
  if (!text) return text.error();
  if (text->truncated) return Error::invalid(path + ": Flight Recorder dump larger than the limit, not read");
  auto r = parse_flight_record(text->text, limits);
  if (!r) return Error::invalid(path + ": " + r.error().message());
  r->rank = rank_from_dump_name(path);
  r->source = path;
  return r;
}

}  // namespace dd::logs
