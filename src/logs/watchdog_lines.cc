// watchdog_records and hang_verdicts (see watchdog_lines.h).
#include "logs/watchdog_lines.h"

#include "logs/framework.h"
#include "nccl/log_line.h"

namespace dd::logs {

std::vector<WatchdogTimeout> watchdog_records(const std::vector<RankLines>& ranks) {
  std::vector<WatchdogTimeout> out;
  for (const RankLines& r : ranks) {
    if (!r.lines) continue;
    FrameworkScanner fw;
    Where at{.file = r.source.empty() ? "rank " + std::to_string(r.rank) : r.source};
    for (const std::string& text : *r.lines) {
      ++at.line;
      const nccl::NcclLine l = nccl::parse_nccl_line(text);
      if (l.level == nccl::NcclLevel::none) fw.line(l.msg, l.fw_rank >= 0 ? l.fw_rank : r.rank, at);
    }
    for (WatchdogTimeout& w : fw.watchdogs) out.push_back(std::move(w));
  }
  return out;
}

std::vector<HangVerdict> hang_verdicts(const std::vector<RankLines>& ranks) {
  std::vector<int> known;
  for (const RankLines& r : ranks)
    if (r.rank >= 0) known.push_back(r.rank);
  return analyze_hangs(watchdog_records(ranks), known);
}

const HangVerdict* culprit_verdict(const std::vector<HangVerdict>& verdicts) {
  for (const HangVerdict& v : verdicts)
    if (v.kind != HangKind::none && v.kind != HangKind::unknown && !v.culprits.empty()) return &v;
  return nullptr;
}

}  // namespace dd::logs
