// hang_trigger(): the patterns, taken from PyTorch 2.x ProcessGroupNCCL output recorded on 4x H100
// (fixtures/logs/h100x4_hangs) and older releases' wording.
#include "logs/hang_trigger.h"

#include <array>

#include "nccl/log_line.h"

namespace dd::logs {

namespace {

struct Pattern {
  std::string_view needle;
  HangTrigger::Kind kind;
};

constexpr std::array kPatterns = {
    Pattern{"Watchdog caught collective operation timeout", HangTrigger::Kind::watchdog_timeout},
    Pattern{"failure detected by watchdog at work sequence id", HangTrigger::Kind::watchdog_timeout},
    Pattern{"Received a dump signal due to a collective timeout", HangTrigger::Kind::dump_signal},
    Pattern{"Observed flight recorder dump signal from another rank", HangTrigger::Kind::dump_signal},
    Pattern{"Process group watchdog thread terminated with exception", HangTrigger::Kind::abort},
    Pattern{"Terminating the process after attempting to dump debug info", HangTrigger::Kind::abort},
    Pattern{"watchdog got stuck for", HangTrigger::Kind::abort},
    Pattern{"NCCL communicator was aborted", HangTrigger::Kind::comm_error},
    Pattern{"NCCL error: remote process exited or there was a network error", HangTrigger::Kind::comm_error},
    Pattern{"ncclRemoteError", HangTrigger::Kind::comm_error},
};

// "[rank3]:" at the start (PyTorch's prefix of a worker's stderr); strips it from *rest.
int leading_rank(std::string_view line, std::string_view* rest) {
  *rest = line;
  if (line.substr(0, 5) != "[rank") return -1;
  int64_t v;
  size_t used;
  if (!nccl::parse_int(line.substr(5), v, &used) || line.size() < 7 + used || line[5 + used] != ']' ||
      line[6 + used] != ':')
    return -1;
  *rest = line.substr(7 + used);
  return int(v);
}

// "[Rank 3]" / "[PG ID 0 PG GUID 0(default_pg) Rank 3]".
int bracket_rank(std::string_view s) {
  size_t k = s.find(" Rank ");
  if (k == std::string_view::npos) k = s.find("[Rank ");
  if (k == std::string_view::npos) return -1;
  int64_t v;
  size_t used;
  if (!nccl::parse_int(s.substr(k + 6), v, &used) || k + 6 + used >= s.size() || s[k + 6 + used] != ']')
    return -1;
  return int(v);
}

std::string op_type(std::string_view s) {
  size_t k = s.find("OpType=");
  if (k == std::string_view::npos) return "";
  size_t e = k + 7;
  while (e < s.size() && ((s[e] >= 'A' && s[e] <= 'Z') || s[e] == '_')) ++e;
  return std::string(s.substr(k + 7, e - k - 7));
}

}  // namespace

const char* hang_trigger_kind_name(HangTrigger::Kind k) {
  switch (k) {
    case HangTrigger::Kind::watchdog_timeout:
      return "watchdog_timeout";
    case HangTrigger::Kind::dump_signal:
      return "dump_signal";
    case HangTrigger::Kind::comm_error:
      return "comm_error";
    case HangTrigger::Kind::abort:
      return "abort";
  }
  return "?";
}

bool is_dump_echo(std::string_view line) {
  for (std::string_view n : {"preparing to dump debug info", "dumping nccl trace to", "dumping trace to",
                             "Flight Recorder trace successfully dumped"})
    if (line.find(n) != std::string_view::npos) return true;
  return false;
}

std::optional<HangTrigger> hang_trigger(std::string_view line) {
  if (line.size() > 64 * 1024) line = line.substr(0, 64 * 1024);
  for (const Pattern& p : kPatterns) {
    if (line.find(p.needle) == std::string_view::npos) continue;
    HangTrigger t;
    t.kind = p.kind;
    std::string_view rest;
    t.rank = leading_rank(line, &rest);
    if (t.rank < 0) t.rank = bracket_rank(rest);
    t.seq = nccl::int_after(rest, "SeqNum=");
    if (t.seq < 0) t.seq = nccl::int_after(rest, "work sequence id: ");
    t.op = op_type(rest);
    t.text = std::string(rest.substr(0, 400));
    return t;
  }
  return std::nullopt;
}

}  // namespace dd::logs
