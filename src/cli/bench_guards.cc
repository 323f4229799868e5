// The sweep's range and memory refusals (see bench_guards.h).
#include "cli/bench_guards.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "comm/engine/units.h"
#include "common/units.h"

namespace dd::cli {

namespace {

// "22.6 GiB", "8 GiB", "2 TiB": one decimal at most, on common/units.h's ladder (B .. PiB).
std::string size_words(uint64_t bytes) {
  const ScaledSize s = scale_size(double(bytes), SizeUnit::PiB);
  std::string t = fmt::format("{:.1f}", s.value);
  if (t.size() > 2 && t.compare(t.size() - 2, 2, ".0") == 0) t.resize(t.size() - 2);
  return t + " " + s.unit;
}

// "send 8 GiB + receive 8 GiB + staging 8 GiB".
std::string buffer_list(const comm::SweepMemory& m) {
  std::string s;
  auto add = [&](const char* name, uint64_t bytes) {
    if (bytes > 0) s += (s.empty() ? "" : " + ") + std::string(name) + " " + size_words(bytes);
  };
  add("send", m.send);
  add("receive", m.recv);
  add("staging", m.stage);
  add("reduce copy", m.temp);
  return s;
}

std::string refusal(uint64_t max_bytes, const comm::SweepMemory& m, int ranks, const std::string& where,
                    uint64_t available, const std::string& source) {
  return fmt::format(
      "-e {} does not fit in {}: each of {} rank(s) needs {} ({} buffer(s): {}), {} in all, and this machine "
      "has {} available ({}); the buffers may take at most {:.0f}% of it. Give a smaller --max-bytes/-e or "
      "fewer ranks",
      comm::exact_bytes_text(max_bytes), where, ranks, size_words(m.per_rank()), m.buffers, buffer_list(m),
      size_words(m.per_rank() * uint64_t(std::max(ranks, 1))), size_words(available), source,
      comm::kBufferShare * 100);
}

}  // namespace

std::string sweep_range_problem(const BenchArgs& a) {
  auto mn = parse_bytes(a.min_bytes), mx = parse_bytes(a.max_bytes);
  if (!mn) return "--min-bytes/-b: " + mn.error().message();
  if (!mx) return "--max-bytes/-e: " + mx.error().message();
  if (*mn == 0) return "-b " + a.min_bytes + ": a size is at least 1 byte";
  if (*mx == 0) return "-e " + a.max_bytes + ": a size is at least 1 byte";
  if (*mn > *mx)
    return fmt::format("-b {} is larger than -e {}: nothing to sweep (the sizes go from -b up to -e)",
                       a.min_bytes, a.max_bytes);
  if (*mn < *mx && a.step_factor < 2)
    return fmt::format(
        "--step-factor/-f {}: each size must be at least twice the last (2 or more, as "
        "nccl-tests' -f)",
        a.step_factor);
  return "";
}

std::string sweep_memory_problem(const comm::BenchOptions& b, int ranks, const probe::NodeFacts& facts,
                                 const probe::HostMemory& host) {
  const comm::SweepMemory m = comm::sweep_memory(b, ranks);
  if (b.run.engine == rules::EngineKind::gloo) {
    const int64_t avail = host.available();
    if (avail < 0 || comm::fits(m.per_rank(), ranks, uint64_t(avail))) return "";
    return refusal(b.max_bytes, m, ranks, "host memory (Gloo keeps its buffers in CPU memory)",
                   uint64_t(avail), host.source());
  }
  // NCCL: the smallest GPU's free memory, shared by the ranks that use it (--gpus 0,0).
  int64_t free_mib = -1;
  for (const auto& g : facts.gpu.gpus) {
    if (g.memory_total_mib <= 0) continue;
    const int64_t f = g.memory_total_mib - std::max<int64_t>(g.memory_used_mib, 0);
    if (free_mib < 0 || f < free_mib) free_mib = f;
  }
  if (free_mib < 0) return "";
  std::map<int, int> per_device;
  int sharing = 1;
  for (int d : b.run.devices) sharing = std::max(sharing, ++per_device[d]);
  if (comm::fits(m.per_rank(), sharing, uint64_t(free_mib) << 20)) return "";
  return refusal(b.max_bytes, m, sharing, "GPU memory", uint64_t(free_mib) << 20,
                 "free memory of the smallest GPU");
}

}  // namespace dd::cli
