// save_attempt_record and parse_attempt_record (see attempt_file.h).
#include "launch/attempt_file.h"

#include <fmt/format.h>

#include "common/json_limits.h"

namespace dd::launch {

namespace {
constexpr const char* kMarker = "distdoctor_launch_attempt";  // what tells our file from another attempt.json
constexpr int kFormat = 1;
}  // namespace

std::string save_attempt_record(const std::string& run_dir, const AttemptRecord& a, probe::Fs& fs) {
  const std::string path = fmt::format("{}/{}/{}", run_dir, a.attempt, kAttemptFileName);
  const std::string text = nlohmann::json{{kMarker, kFormat}, {"record", a}}.dump(1) + "\n";
  // A record of the run, not a checkpoint: no fsync; never written through a link someone put there.
  const Status st = fs.write_atomically(path, text, {.symlinks = Symlinks::refuse, .sync = false});
  return st ? "" : st.error().message();
}

Result<AttemptRecord> parse_attempt_record(const std::string& text) {
  const nlohmann::json j = parse_json_or_discarded(text);
  if (j.is_discarded()) return Error::make(ErrorKind::invalid, "not JSON (or nested too deep)");
  if (!j.is_object() || !j.contains(kMarker) || !j[kMarker].is_number_integer())
    return Error::make(ErrorKind::invalid, "not a distdoctor launch attempt record");
  if (j[kMarker].get<int>() != kFormat)
    return Error::make(ErrorKind::invalid, fmt::format("attempt record format {} (this distdoctor reads {})",
                                                       j[kMarker].get<int>(), kFormat));
  std::string why;
  auto rec = j.contains("record") ? parse_record<AttemptRecord>(j["record"].dump(), &why) : std::nullopt;
  if (!rec) return Error::make(ErrorKind::invalid, "a damaged attempt record: " + why);
  return *rec;
}

}  // namespace dd::launch
