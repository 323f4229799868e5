// Event lines from worker to supervisor: writing them, and the names of error kinds they carry.
#include "comm/run/worker_events.h"

#include <unistd.h>

#include <cerrno>
#include <utility>

#include "common/safe_text.h"

namespace dd::comm {

namespace {
const std::pair<ErrorKind, const char*> kKindNames[] = {
    {ErrorKind::other, "other"},
    {ErrorKind::timeout, "timeout"},
    {ErrorKind::refused, "refused"},
    {ErrorKind::closed, "closed"},
    {ErrorKind::protocol, "protocol"},
    {ErrorKind::auth, "auth"},
    {ErrorKind::not_found, "not_found"},
    {ErrorKind::io, "io"},
    {ErrorKind::crashed, "crashed"},
    {ErrorKind::invalid, "invalid"},
    {ErrorKind::unavailable, "unavailable"},
};
}  // namespace

void emit_event(int fd, const nlohmann::json& event) {
  std::string s = json_text(event) + "\n";
  const char* p = s.data();
  size_t left = s.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    p += n;
    left -= size_t(n);
  }
}

nlohmann::json error_event(const std::vector<int>& ranks, const char* stage, int op, const Error& e) {
  nlohmann::json j = {{"ev", "error"},
                      {"stage", stage},
                      {"ranks", ranks},
                      {"msg", e.message()},
                      {"kind", error_kind_name(e.kind)}};
  if (op >= 0) j["op"] = op;
  return j;
}

nlohmann::json result_event(int op, const std::vector<RankResult>& results) {
  nlohmann::json rr = nlohmann::json::array();
  for (const auto& r : results)
    rr.push_back({{"rank", r.rank},
                  {"time_us", r.time_us},
                  {"wrong", r.wrong},
                  {"first_wrong", r.first_wrong},
                  {"checked", r.checked},
                  {"participated", r.participated},
                  {"alloc_us", r.alloc_us},
                  {"wall_us", r.wall_us}});
  return {{"ev", "result"}, {"op", op}, {"ranks", rr}};
}

const char* error_kind_name(ErrorKind k) {
  for (const auto& [kind, name] : kKindNames)
    if (kind == k) return name;
  return "other";
}

ErrorKind error_kind_from_name(const std::string& name) {
  for (const auto& [kind, n] : kKindNames)
    if (name == n) return kind;
  return ErrorKind::other;
}

}  // namespace dd::comm
