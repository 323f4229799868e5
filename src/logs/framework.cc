// Hand-written matchers for PyTorch ProcessGroupNCCL watchdog lines and torchrun failure summaries.
#include "logs/framework.h"

#include <fmt/format.h>

#include <cstring>

#include "logs/log_time.h"
#include "nccl/log_line.h"

namespace dd::logs {

namespace {

constexpr size_t kMaxRecords = 65536;  // watchdog records per file
// Per rank and file: a rank times out once per process group and attempt; the lookups below walk one rank's
// records, so this also bounds their cost (65,536 records of one rank took 3.7 s).
constexpr size_t kMaxRecordsPerRank = 1024;

// find, not memmem: cheaper on the short lines that are most of a log (progress_scan.cc's ps_has says why).
bool contains(std::string_view s, std::string_view n) { return s.find(n) != std::string_view::npos; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "[Rank 3]" / "[PG ID 0 PG GUID 0(default_pg) Rank 3]" / "[PG 0 (default_pg) Rank 3]".
int rank_in_brackets(std::string_view s) {
  size_t k = s.find("Rank ");
  if (k == std::string_view::npos) return -1;
  int64_t v;
  size_t used;
  if (!nccl::parse_int(s.substr(k + 5), v, &used)) return -1;
  return k + 5 + used < s.size() && s[k + 5 + used] == ']' ? static_cast<int>(v) : -1;
}

// The process group of "[PG ID 0 PG GUID 0(default_pg) Rank 3]" ("0(default_pg)") or "[PG 0 (default_pg) Rank
// 3]" ("0(default_pg)"); "" when the line names none.
std::string pg_in_brackets(std::string_view s) {
  size_t k = s.find("[PG ");
  if (k == std::string_view::npos) return "";
  size_t end = s.find(" Rank ", k);
  if (end == std::string_view::npos) return "";
  std::string_view pg = s.substr(k + 4, end - k - 4);
  size_t g = pg.find("GUID ");
  if (g != std::string_view::npos) pg.remove_prefix(g + 5);
  if (pg.size() > 2 && pg.compare(0, 3, "ID ") == 0) pg.remove_prefix(3);
  std::string out;
  for (char c : pg.substr(0, 120))
    if (c != ' ') out += c;
  return out;
}

}  // namespace

FrameworkScanner::FrameworkScanner(const Catalogue& cat) {
  if (const CatalogueEntry* e = cat.find(kWatchdogTimeoutEntry)) watchdog_needles_ = &e->needles;
}

bool FrameworkScanner::watchdog_line(std::string_view msg) const {
  if (watchdog_needles_)
    for (const std::string& n : *watchdog_needles_)
      if (contains(msg, n)) return true;
  return false;
}

void FrameworkScanner::line(std::string_view msg, int fw_rank, const Where& at) {
  if (block_lines_left_ > 0) {
    summary_line(msg, at);
    return;
  }
  if (contains(msg, "ChildFailedError")) {
    block_lines_left_ = 400;
    block_start_ = child_failures.size();
    root_next_ = false;
    return;
  }
  if (watchdog_line(msg)) {
    watchdog_timeout(msg, fw_rank, at);
    return;
  }
  // "last enqueued NCCL work: 3, last completed NCCL work: 2" (2.1-2.4) / "last enqueued work: 3, last
  // completed work: 2" (2.5+, "PG status").
  size_t ke = msg.find("ast enqueued ");
  if (ke != std::string_view::npos && msg.find("work: ", ke) != std::string_view::npos) {
    int rank = rank_in_brackets(msg);
    work_status(msg.substr(ke), rank >= 0 ? rank : fw_rank, pg_in_brackets(msg), at, log_time_key(msg));
    return;
  }
  // "ProcessGroupNCCL preparing to dump debug info. ..." (ProcessGroupNCCL.cpp), "Finished writing NCCLPG
  // debug info to /tmp/nccl_trace_rank_0" (FlightRecorder.cpp, an INFO line): one search for both.
  const size_t k = msg.find("debug info");
  if (k == std::string_view::npos) return;
  int rank = rank_in_brackets(msg);
  if (rank < 0) rank = fw_rank;
  if (k >= 18 && msg.compare(k - 18, 18, "preparing to dump ") == 0)
    dump_request(rank, pg_in_brackets(msg), at, log_time_key(msg));
  else if (msg.compare(k + 10, 4, " to ") == 0 && k + 14 < msg.size())
    dump_written(rank, trim(msg.substr(k + 14, 512)), at, log_time_key(msg));
}

void FrameworkScanner::summary_line(std::string_view msg, const Where& at) {
  --block_lines_left_;
  std::string_view t = trim(msg);
  if (t.size() >= 20 && t.compare(0, 20, "====================") == 0 &&
      child_failures.size() > block_start_) {
    block_lines_left_ = 0;  // closing rule of the summary
    return;
  }
  if (t.size() > 2 && t[0] == '[' && t.back() == ':' && t[t.size() - 2] == ']') {  // "[0]:" starts a failure
    if (child_failures.size() < 1024)
      child_failures.push_back(ChildFailure{.at = at, .root_cause = root_next_});
    root_next_ = false;
    return;
  }
  if (t.size() > 10 && t.compare(0, 10, "Root Cause") == 0) {
    root_next_ = true;
    return;
  }
  size_t colon = t.find(" : ");
  if (colon == std::string_view::npos && t.size() > 10 && t.compare(0, 10, "error_file") == 0) colon = 10;
  if (colon != std::string_view::npos && colon < 16 && !child_failures.empty())
    child_field(trim(t.substr(0, colon)), trim(t.substr(colon + 3 > t.size() ? t.size() : colon + 3)), at);
}

void FrameworkScanner::watchdog_timeout(std::string_view msg, int fw_rank, const Where& at) {
  WatchdogTimeout w;
  w.at = at;
  w.rank = rank_in_brackets(msg);
  if (w.rank < 0) w.rank = fw_rank;
  w.seq = nccl::int_after(msg, "SeqNum=");
  size_t k = msg.find("OpType=");
  if (k != std::string_view::npos) {
    std::string_view op = msg.substr(k + 7);
    w.op = std::string(op.substr(0, op.find_first_of(", )")));
  }
  w.numel_in = nccl::int_after(msg, "NumelIn=");
  w.numel_out = nccl::int_after(msg, "NumelOut=");
  w.timeout_ms = nccl::int_after(msg, "Timeout(ms)=");
  w.ran_ms = nccl::int_after(msg, "ran for ");
  w.pg = pg_in_brackets(msg);
  w.time = log_time_key(msg);
  // The watchdog restates its timeout when it ends ("Process group watchdog thread terminated with exception:
  // ...", terminate's "what():"): one record per rank and collective.
  for (uint32_t i : of_rank(w.rank))
    if (WatchdogTimeout& o = watchdogs[i]; o.seq == w.seq && o.op == w.op && !o.op.empty()) {
      if (o.pg.empty()) o.pg = std::move(w.pg);
      return;
    }
  keep(std::move(w));
}

void FrameworkScanner::work_status(std::string_view tail, int rank, std::string pg, const Where& at,
                                   int64_t time) {
  int64_t enq = nccl::int_after(tail, "work: ");
  size_t kc = tail.find("last completed ");
  int64_t done = kc == std::string_view::npos ? -1 : nccl::int_after(tail.substr(kc), "work: ");
  const std::vector<uint32_t>& mine = of_rank(rank);
  for (auto i = mine.rbegin(); i != mine.rend(); ++i) {
    WatchdogTimeout* it = &watchdogs[*i];
    if (it->dump_only) continue;
    if (!it->pg.empty() && !pg.empty() && it->pg != pg) continue;
    if (it->pg.empty()) it->pg = pg;
    if (it->last_completed < 0) {
      it->last_enqueued = enq;
      it->last_completed = done;
    }
    return;
  }
  WatchdogTimeout w;  // a rank that did not time out itself but reported where it stood
  w.at = at;
  w.rank = rank;
  w.last_enqueued = enq;
  w.last_completed = done;
  w.pg = std::move(pg);
  w.time = time;
  keep(std::move(w));
}

void FrameworkScanner::dump_request(int rank, std::string pg, const Where& at, int64_t time) {
  for (uint32_t i : of_rank(rank))
    if (watchdogs[i].pg == pg) {  // the rank already said more (or asked before)
      watchdogs[i].dump_prepared = true;
      return;
    }
  WatchdogTimeout w;
  w.at = at;
  w.rank = rank;
  w.pg = std::move(pg);
  w.time = time;
  w.dump_only = true;
  w.dump_prepared = true;
  keep(std::move(w));
}

void FrameworkScanner::dump_written(int rank, std::string_view path, const Where& at, int64_t time) {
  if (const std::vector<uint32_t>& mine = of_rank(rank); !mine.empty()) {
    watchdogs[mine.front()].dump_path = std::string(path);
    return;
  }
  WatchdogTimeout w;
  w.at = at;
  w.rank = rank;
  w.time = time;
  w.dump_only = true;
  w.dump_path = std::string(path);
  keep(std::move(w));
}

const std::vector<uint32_t>& FrameworkScanner::of_rank(int rank) const {
  static const std::vector<uint32_t> none;
  auto it = by_rank_.find(rank);
  return it == by_rank_.end() ? none : it->second;
}

void FrameworkScanner::keep(WatchdogTimeout&& w) {
  std::vector<uint32_t>& mine = by_rank_[w.rank];
  const char* limit = watchdogs.size() >= kMaxRecords       ? "per file"
                      : mine.size() >= kMaxRecordsPerRank   ? "per rank in one file"
                      : run_records && !run_records->take() ? "for all files together"
                                                            : nullptr;
  if (!limit) {
    mine.push_back(static_cast<uint32_t>(watchdogs.size()));
    watchdogs.push_back(std::move(w));
  } else if (capped.empty()) {
    capped = fmt::format("more PyTorch watchdog records than the limit {} (line {} and later left out)",
                         limit, w.at.line);
  }
}

void FrameworkScanner::child_field(std::string_view key, std::string_view value, const Where& at) {
  ChildFailure& c = child_failures.back();
  int64_t v;
  if (key == "host")
    c.host = std::string(value);
  else if (key == "time")
    c.time = std::string(value);
  else if (key == "rank") {
    if (nccl::parse_int(value, v)) c.rank = static_cast<int>(v);
    int64_t lr = nccl::int_after(value, "local_rank: ");
    if (lr >= 0) c.local_rank = static_cast<int>(lr);
  } else if (key == "exitcode") {
    if (nccl::parse_int(value, v)) c.exitcode = static_cast<int>(v);
    c.pid = nccl::int_after(value, "pid: ");
  }
}

}  // namespace dd::logs
