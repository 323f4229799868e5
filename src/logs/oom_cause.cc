// oom_other_holder and its text (see oom_cause.h).
#include "logs/oom_cause.h"

#include <fmt/format.h>

#include "nccl/log_line.h"

namespace dd::logs {

namespace {

// "131.79 GiB" -> bytes (format_size prints bytes, KiB, MiB or GiB with two decimals); -1 when not a size.
double oc_bytes(std::string_view s) {
  size_t sp = s.find(' ');
  if (sp == std::string_view::npos || sp == 0 || sp > 24) return -1;
  char* end = nullptr;
  const std::string num(s.substr(0, sp));
  double v = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size()) return -1;
  std::string_view unit = s.substr(sp + 1, 5);
  if (unit.rfind("GiB", 0) == 0) return v * (1 << 30);
  if (unit.rfind("MiB", 0) == 0) return v * (1 << 20);
  if (unit.rfind("KiB", 0) == 0) return v * 1024;
  if (unit.rfind("bytes", 0) == 0) return v;
  return -1;
}

// The size that starts at s ("131.79 GiB ..." -> "131.79 GiB").
std::string_view oc_size(std::string_view s) {
  size_t sp = s.find(' ');
  if (sp == std::string_view::npos) return {};
  size_t end = s.find_first_of(" .", sp + 1);
  return s.substr(0, end == std::string_view::npos ? s.size() : end);
}

}  // namespace

std::optional<OomHolder> oom_other_holder(std::string_view m) {
  constexpr std::string_view kCap = " has a total capacity of ", kUse = " memory in use";
  size_t c = m.find(kCap);
  size_t g = c == std::string_view::npos ? c : m.rfind("GPU ", c);
  if (g == std::string_view::npos) return std::nullopt;
  OomHolder best;
  int64_t gpu;
  if (nccl::parse_int(m.substr(g + 4, c - g - 4), gpu)) best.gpu = static_cast<int>(gpu);
  best.capacity = std::string(oc_size(m.substr(c + kCap.size())));
  const double capacity = oc_bytes(best.capacity);
  double best_bytes = -1, self_bytes = -1;
  for (size_t u = m.find(kUse, c); u != std::string_view::npos; u = m.find(kUse, u + kUse.size())) {
    size_t has = m.rfind(" has ", u);
    if (has == std::string_view::npos || has < c) continue;
    const std::string_view size = m.substr(has + 5, u - has - 5);
    const double bytes = oc_bytes(size);
    if (m.substr(0, has).ends_with("this process")) {  // "Including non-PyTorch memory, this process has"
      self_bytes = bytes;
      continue;
    }
    size_t p = m.rfind("Process ", has);
    int64_t pid;
    if (p == std::string_view::npos || p < c || !nccl::parse_int(m.substr(p + 8, has - p - 8), pid)) continue;
    if (bytes > best_bytes) {
      best_bytes = bytes;
      best.pid = pid;
      best.held = std::string(size);
    }
  }
  if (best.pid < 0 || best_bytes <= 0) return std::nullopt;
  if (!(capacity > 0 && best_bytes * 2 >= capacity) && !(self_bytes >= 0 && best_bytes > self_bytes))
    return std::nullopt;
  return best;
}

std::string oom_holder_text(const OomHolder& h, const std::vector<std::pair<int64_t, int>>& job_pids) {
  std::string whose = ", not part of this job,";
  for (const auto& [pid, rank] : job_pids)
    if (pid == h.pid) whose = rank >= 0 ? fmt::format(" (rank {} of this job)", rank) : " (of this job)";
  return fmt::format("process {}{} holds {} of GPU {}{}", h.pid, whose, h.held, h.gpu,
                     h.capacity.empty() ? "" : " (" + h.capacity + ")");
}

}  // namespace dd::logs
