// Structured facts from framework output that the catalogue alone cannot give: PyTorch watchdog timeouts
// (op, SeqNum, sizes, process group, timeout, last enqueued/completed work per rank, debug-info dumps) and
// torchrun's ChildFailedError summary blocks. The watchdog's timeout line is the catalogue's
// pytorch.watchdog_timeout: its needles say which lines this reads in full.
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/shared_count.h"
#include "logs/catalogue.h"
#include "logs/log_facts.h"

namespace dd::logs {

// The catalogue entry whose lines are PyTorch's watchdog timeouts (read here into WatchdogTimeout records).
inline constexpr char kWatchdogTimeoutEntry[] = "pytorch.watchdog_timeout";

class FrameworkScanner {
 public:
  // cat: where the watchdog timeout's needles come from (none when it lacks kWatchdogTimeoutEntry).
  explicit FrameworkScanner(const Catalogue& cat = Catalogue::builtin());

  // One non-NCCL line, framework prefix already stripped (fw_rank = its rank, or -1).
  void line(std::string_view msg, int fw_rank, const Where& at);

  std::vector<WatchdogTimeout> watchdogs;  // also ranks that only reported "last completed" on a dump
  std::vector<ChildFailure> child_failures;
  // The records all files of the run may keep together (RunBudget::watchdogs); null: the per-file caps only.
  SharedCount* run_records = nullptr;
  std::string capped;  // why records were dropped ("" when none was)

 private:
  void summary_line(std::string_view msg, const Where& at);  // a line inside a ChildFailedError summary
  void watchdog_timeout(std::string_view msg, int fw_rank, const Where& at);
  // "last enqueued ... work: N, ..."; pg: the line's process group
  void work_status(std::string_view tail, int rank, std::string pg, const Where& at, int64_t time);
  void dump_request(int rank, std::string pg, const Where& at, int64_t time);
  void dump_written(int rank, std::string_view path, const Where& at, int64_t time);  // its file
  void child_field(std::string_view key, std::string_view value, const Where& at);
  void keep(WatchdogTimeout&& w);                        // within the caps, indexed by rank
  const std::vector<uint32_t>& of_rank(int rank) const;  // positions in watchdogs, in input order
  bool watchdog_line(std::string_view msg) const;        // holds a needle of kWatchdogTimeoutEntry
  std::unordered_map<int, std::vector<uint32_t>> by_rank_;
  const std::vector<std::string>* watchdog_needles_ = nullptr;
  int block_lines_left_ = 0;  // > 0 while inside a ChildFailedError summary
  size_t block_start_ = 0;    // failures before the current summary began
  bool root_next_ = false;    // the next "[N]:" entry follows "Root Cause"
};

}  // namespace dd::logs
