// ProgressScanner: a few literal searches per non-NCCL line (tracebacks, exits, markers), a bucket update and
// a timestamp check per NCCL line. Tracebacks are captured for a bounded number of lines and read with
// python_traceback.h.
#include "logs/progress_scan.h"

#include <cstring>

#include "logs/log_time.h"
#include "logs/python_traceback.h"
#include "nccl/log_line.h"

namespace dd::logs {

namespace {

constexpr int kTracebackLines = 80;    // lines captured after a "Traceback" header
constexpr size_t kMaxTraceback = 400;  // lines kept for one chain
constexpr size_t kMaxLastLine = 200;

// string_view::find (memchr on the first byte, then a compare), not memmem: on short lines glibc's memmem
// costs twice as much per call, and every line that is not NCCL's takes about ten of these looks (issue 38).
bool ps_has(std::string_view s, std::string_view n) { return s.find(n) != std::string_view::npos; }

// A launcher's own traceback (torchrun's ChildFailedError, its SignalException) is not a rank's failure.
bool launcher_traceback(std::string_view tb) {
  return ps_has(tb, "ChildFailedError") || ps_has(tb, "SignalException") ||
         ps_has(tb, "torch/distributed/run.py");
}

bool has_any(std::string_view s, const std::vector<std::string_view>& needles) {
  for (std::string_view n : needles)
    if (ps_has(s, n)) return true;
  return false;
}

}  // namespace

ProgressScanner::ProgressScanner(std::string file, const Catalogue& cat) : file_(std::move(file)) {
  bucket(-1);
  for (const RoleNeedle& n : cat.role_needles(CatalogueRole::peer_failure)) {
    peer_failure_.push_back(n.text);
    if (cat.entries()[n.entry].peer_kind != PeerKind::lost_peer) continue;
    lost_peer_.push_back(n.text);
    lost_peer_gated_ &= ps_has(n.text, "peer") || ps_has(n.text, "remote");
  }
}

bool ProgressScanner::lost_peer(std::string_view msg) const { return has_any(msg, lost_peer_); }

// A traceback that reports a peer's failure or a timeout (a consequence on a survivor).
bool ProgressScanner::peer_failure(std::string_view tb) const { return has_any(tb, peer_failure_); }

int rank_from_file_name(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (size_t k = name.find("rank"); k != std::string_view::npos; k = name.find("rank", k + 1)) {
    if (k > 0 && ((name[k - 1] >= 'a' && name[k - 1] <= 'z') || (name[k - 1] >= 'A' && name[k - 1] <= 'Z')))
      continue;  // "worldrank", "nranks"
    size_t d = k + 4;
    if (d < name.size() && (name[d] == '_' || name[d] == '-')) ++d;
    int64_t v;
    size_t used;
    if (nccl::parse_int(name.substr(d), v, &used) && v >= 0 && v < (1 << 24) &&
        (d + used == name.size() || !(name[d + used] >= '0' && name[d + used] <= '9')))
      return static_cast<int>(v);
  }
  return -1;
}

void merge_progress(RankProgress& a, RankProgress&& b) {
  auto earlier = [](int64_t tb, int64_t ta) { return tb >= 0 && ta >= 0 && tb < ta; };
  a.lines += b.lines;
  if (b.lines > 0) a.last_at = b.last_at;
  if (!b.last_line.empty()) a.last_line = std::move(b.last_line);
  if (b.last_time > a.last_time) a.last_time = b.last_time;
  a.nccl_seen |= b.nccl_seen;
  if (b.init_marker_at.line > 0) a.init_marker_at = b.init_marker_at;
  a.waiting_peers |= b.waiting_peers;
  if (!b.exception.empty() && (a.exception.empty() || earlier(b.exception_time, a.exception_time))) {
    a.exception = std::move(b.exception);
    a.exception_at = b.exception_at;
    a.exception_time = b.exception_time;
  }
  if (!b.peer_lost.empty() && (a.peer_lost.empty() || earlier(b.peer_lost_time, a.peer_lost_time))) {
    a.peer_lost = std::move(b.peer_lost);
    a.peer_lost_at = b.peer_lost_at;
    a.peer_lost_time = b.peer_lost_time;
  }
  if (a.waiting_in.empty()) a.waiting_in = std::move(b.waiting_in);
}

ProgressScanner::Bucket& ProgressScanner::bucket(int fw_rank) {
  if (fw_rank != last_key_) {
    auto [it, fresh] = buckets_.try_emplace(fw_rank);
    if (fresh) {
      it->second.p.rank = fw_rank;
      it->second.p.file = file_;
    }
    last_ = &it->second;
    last_key_ = fw_rank;
  }
  return *last_;
}

ProgressScanner::Bucket& ProgressScanner::touch(std::string_view raw, int fw_rank, const Where& at) {
  Bucket& b = bucket(fw_rank);
  ++b.p.lines;
  b.last_line_no = at.line;  // a number, not a Where: no string copy per line
  int64_t t = log_time_key(raw);
  if (t >= 0) file_time_ = b.p.last_time = t;
  return b;
}

void ProgressScanner::nccl_line(std::string_view raw, bool warn, std::string_view msg, int fw_rank,
                                const Where& at) {
  Bucket& b = touch(raw, fw_rank, at);
  b.p.nccl_seen = true;
  if (warn && b.p.peer_lost.empty() && lost_peer(msg)) {
    b.p.peer_lost = std::string(msg.substr(0, 200));
    b.p.peer_lost_at = at;
    b.p.peer_lost_time = b.p.last_time;
  }
}

void ProgressScanner::other_line(std::string_view raw, std::string_view msg, int fw_rank, const Where& at) {
  Bucket& b = touch(raw, fw_rank, at);
  b.p.last_line.assign(msg.substr(0, kMaxLastLine));
  const size_t tb_at = msg.find("Traceback (most recent call last)");
  const bool tb = tb_at != std::string_view::npos;
  if (tb) {
    if (b.tb.empty()) {
      b.tb_at = at;
      b.tb_time = b.p.last_time >= 0 ? b.p.last_time : file_time_;
    }
    b.tb_left = kTracebackLines;
  }
  if (b.tb_left > 0) {  // raw lines: python_traceback.h removes the rank prefixes itself
    if (b.tb.size() < kMaxTraceback) b.tb.emplace_back(tb ? msg.substr(tb_at) : raw);
    if (--b.tb_left == 0) end_traceback(b);
    if (tb) return;
  }
  if (msg.size() < 9) return;
  markers(b, msg, at);
  if (ps_has(msg, "xit") || ps_has(msg, "SIGTERM")) exit_line(msg, at);  // one cheap look for all exit forms
}

void ProgressScanner::markers(Bucket& b, std::string_view msg, const Where& at) {
  if (b.p.waiting_peers && (ps_has(msg, "Run Pod") || ps_has(msg, "status ready"))) b.p.waiting_peers = false;
  const bool nccl = ps_has(msg, "NCCL"), peer = ps_has(msg, "peer"), remote = ps_has(msg, "remote");
  if (nccl && ps_has(msg, "Start initializing NCCL communicator")) b.p.init_marker_at = at;
  if (peer && ps_has(msg, "Waiting peer start")) b.p.waiting_peers = true;
  if (nccl && b.p.waiting_in.empty() && ps_has(msg, "WorkNCCL(SeqNum=")) {
    int64_t seq = nccl::int_after(msg, "SeqNum=", INT64_MIN);
    size_t k = msg.find("OpType=");
    std::string op = k == std::string_view::npos
                         ? ""
                         : std::string(msg.substr(k + 7, msg.find_first_of(", )", k + 7) - k - 7));
    b.p.waiting_in = op + " SeqNum=" + std::to_string(seq);
  }
  if ((peer || remote || !lost_peer_gated_) && b.p.peer_lost.empty() && lost_peer(msg)) {
    b.p.peer_lost = std::string(msg.substr(0, 200));
    b.p.peer_lost_at = at;
    b.p.peer_lost_time = b.p.last_time >= 0 ? b.p.last_time : file_time_;
  }
}

void ProgressScanner::exit_line(std::string_view msg, const Where& at) {
  ExitEvent e{.at = at, .time = file_time_};
  int64_t v;
  if (ps_has(msg, "closing signal SIGTERM") &&
      (v = nccl::int_after(msg, "Sending process ", INT64_MIN)) != INT64_MIN) {
    e.pid = v, e.code = -15, e.by_launcher = true;
  } else if ((v = nccl::int_after(msg, "(exitcode: ", INT64_MIN)) != INT64_MIN) {
    e.code = static_cast<int>(v);
    int64_t lr = nccl::int_after(msg, "local_rank: ", INT64_MIN),
            pid = nccl::int_after(msg, "(pid: ", INT64_MIN);
    if (lr != INT64_MIN) e.local_rank = static_cast<int>(lr);
    if (pid != INT64_MIN) e.pid = pid;
  } else if ((v = nccl::int_after(msg, "exited on signal ", INT64_MIN)) != INT64_MIN) {
    e.code = -static_cast<int>(v);
    int64_t r = nccl::int_after(msg, "process rank ", INT64_MIN);
    if (r != INT64_MIN) e.rank = static_cast<int>(r);
  } else if ((v = nccl::int_after(msg, "xit code ", INT64_MIN)) !=
             INT64_MIN) {  // Paddle "Exit code -15", Slurm "exit code 1"
    e.code = static_cast<int>(v);
    e.by_launcher = v == -15;
    int64_t r = nccl::int_after(msg, "task ", INT64_MIN);
    if (r != INT64_MIN) e.rank = static_cast<int>(r);
  } else {
    return;
  }
  if (exits_.size() < 4096) exits_.push_back(e);
}

void ProgressScanner::end_traceback(Bucket& b) {
  b.tb_left = 0;
  if (b.tb.empty()) return;
  std::string tb = last_python_traceback(b.tb);
  std::string exc = traceback_exception(tb);
  while (!exc.empty() && (exc.back() == ' ' || exc.back() == '\t' || exc.back() == '\r')) exc.pop_back();
  b.tb.clear();
  if (exc.empty() || launcher_traceback(tb)) return;
  if (peer_failure(tb)) {
    if (b.p.peer_lost.empty()) {
      b.p.peer_lost = exc.substr(0, 200);
      b.p.peer_lost_at = b.tb_at;
      b.p.peer_lost_time = b.tb_time;
    }
    return;
  }
  if (!b.p.exception.empty()) return;
  b.p.exception = exc.substr(0, 300);
  b.p.exception_at = b.tb_at;
  b.p.exception_time = b.tb_time;
}

void ProgressScanner::finish(const std::vector<ProcessFacts>& procs, std::vector<RankProgress>& ranks,
                             std::vector<ExitEvent>& exits) {
  int file_rank = rank_from_file_name(file_);
  if (file_rank < 0) {
    int only = -1, n = 0;
    for (const auto& p : procs)
      if (p.rank >= 0 && p.rank != only) only = p.rank, ++n;
    if (n == 1) file_rank = only;
  }
  for (auto& [k, b] : buckets_) {
    end_traceback(b);
    b.p.last_at = Where{.file = file_, .line = b.last_line_no};
  }
  Bucket unprefixed = std::move(buckets_[-1]);
  buckets_.erase(-1);
  if (file_rank >= 0) {
    unprefixed.p.rank = file_rank;
    auto it = buckets_.find(file_rank);
    if (it == buckets_.end()) {
      ranks.push_back(std::move(unprefixed.p));
    } else {
      merge_progress(it->second.p, std::move(unprefixed.p));
    }
  } else if (buckets_.empty()) {
    ranks.push_back(std::move(unprefixed.p));  // one stream of unknown rank: the file itself
  }                                            // else: a shared console's unprefixed lines are the launcher's
  for (auto& [k, b] : buckets_) ranks.push_back(std::move(b.p));
  for (auto& e : exits_) exits.push_back(e);
}

}  // namespace dd::logs
