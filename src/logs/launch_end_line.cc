// launch_end_line and its reader (see launch_end_line.h).
#include "logs/launch_end_line.h"

#include <fmt/format.h>

#include <ctime>

#include "common/signal_name.h"
#include "logs/log_time.h"
#include "nccl/log_line.h"

namespace dd::logs {

namespace {

constexpr std::string_view kMark = " distdoctor launch: rank ";
constexpr std::string_view kStopped = "was stopped by launch";
constexpr std::string_view kKilled = "was killed by signal ";
constexpr std::string_view kExited = "exited with status ";

}  // namespace

std::string launch_end_line(const RankEnd& e) {
  const std::time_t secs = std::time_t(e.wall_ms / 1000);
  std::tm tm{};
  localtime_r(&secs, &tm);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
  std::string how;
  if (e.stopped_by_launch)
    how = fmt::format("{} ({})", kStopped, e.signal ? signal_name(e.signal) : "ended");
  else if (e.signal != 0)
    how = fmt::format("{}{} ({})", kKilled, e.signal, signal_name(e.signal));
  else
    how = fmt::format("{}{}", kExited, e.exit_code);
  return fmt::format("{}.{:03}{}{} (pid {}) {}\n", when, e.wall_ms % 1000, kMark, e.rank, e.pid, how);
}

bool is_launch_end_line(std::string_view line) {
  return !line.empty() && line[0] >= '0' && line[0] <= '9' && line.find(kMark) != std::string_view::npos;
}

std::optional<ExitEvent> read_launch_end_line(std::string_view line, const Where& at) {
  if (!is_launch_end_line(line)) return std::nullopt;
  const std::string_view rest = line.substr(line.find(kMark));
  ExitEvent e{.at = at, .time = log_time_key(line)};
  const int64_t rank = nccl::int_after(rest, kMark, INT64_MIN),
                pid = nccl::int_after(rest, "(pid ", INT64_MIN);
  if (rank == INT64_MIN || rank < 0 || rank > (1 << 24)) return std::nullopt;
  e.rank = int(rank);
  if (pid != INT64_MIN) e.pid = pid;
  if (rest.find(kStopped) != std::string_view::npos) {
    const size_t open = rest.rfind('(');
    const int sig = open == std::string_view::npos
                        ? 0
                        : signal_number(rest.substr(open + 1, rest.find(')', open) - open - 1));
    e.code = -(sig ? sig : 15);
    e.by_launcher = true;
  } else if (const int64_t sig = nccl::int_after(rest, kKilled, INT64_MIN); sig != INT64_MIN) {
    e.code = -int(sig);
  } else if (const int64_t code = nccl::int_after(rest, kExited, INT64_MIN); code != INT64_MIN) {
    e.code = int(code);
  } else {
    return std::nullopt;
  }
  return e;
}

}  // namespace dd::logs
