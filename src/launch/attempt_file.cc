// save_attempt_record and parse_attempt_record (see attempt_file.h).
#include "launch/attempt_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/json_limits.h"
#include "common/output_file.h"

namespace dd::launch {

namespace {
constexpr const char* kMarker = "distdoctor_launch_attempt";  // what tells our file from another attempt.json
constexpr int kFormat = 1;
}  // namespace

std::string save_attempt_record(const std::string& run_dir, const AttemptRecord& a) {
  const std::string dir = fmt::format("{}/{}", run_dir, a.attempt);
  const std::string path = dir + "/" + kAttemptFileName;
  const std::string tmp = fmt::format("{}.{}.tmp", path, ::getpid());
  const std::string text = nlohmann::json{{kMarker, kFormat}, {"record", a}}.dump(1) + "\n";
  auto fd = open_output_file(tmp, {.truncate = true});
  if (!fd) return fd.error().message();
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(*fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = fmt::format("cannot write {}: {}", tmp, std::strerror(errno));
      ::close(*fd);
      ::unlink(tmp.c_str());
      return why;
    }
    done += static_cast<size_t>(n);
  }
  if (::close(*fd) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = fmt::format("cannot write {}: {}", path, std::strerror(errno));
    ::unlink(tmp.c_str());
    return why;
  }
  return "";
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
