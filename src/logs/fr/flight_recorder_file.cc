// Reading one Flight Recorder dump file: its size checked first (a dump over the limit is refused unread),
// then the one regular-file opener with a size cap, then the parser.
#include <fmt/format.h>

#include "logs/fr/flight_recorder.h"
#include "probe/regular_file.h"

namespace dd::logs {

Result<FlightRecord> read_flight_record_file(const std::string& path, const PickleLimits& limits) {
  auto size = probe::stat_regular_file(path);
  if (!size) return size.error();
  if (*size >
      limits.max_input_bytes)  // refused before a byte is read (a 600 MB file cost 600 MB and seconds)
    return Error::invalid(
        fmt::format("{}: Flight Recorder dump of {} MiB, over the limit of {} MiB: not read", path,
                    *size >> 20, limits.max_input_bytes >> 20));
  probe::ReadLimits rl;
  rl.max_bytes = limits.max_input_bytes;
  rl.deadline = std::chrono::milliseconds(60'000);
  auto text = probe::read_regular_file(path, rl);
  if (!text) return text.error();
  if (text->truncated) return Error::invalid(path + ": Flight Recorder dump larger than the limit, not read");
  auto r = parse_flight_record(text->text, limits);
  if (!r) {  // its kind kept: protocol when it is no dump at all (scan_file then reads it as text)
    Error e = r.error();
    e.what = path + ": " + e.what;
    return e;
  }
  r->rank = rank_from_dump_name(path);
  r->source = path;
  return r;
}

}  // namespace dd::logs
