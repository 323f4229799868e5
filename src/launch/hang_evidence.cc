// HangEvidence (see hang_evidence.h): after a watchdog timeout PyTorch also dumps by itself; the stacks and
// dumps are waited for at most kHangWait (an interrupt: kInterruptWait). A job that ends well leaves each
// worker's exit dump: read then, it shows ranks that called the same collective with different sizes or
// types, which NCCL may not notice.
#include "launch/hang_evidence.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <deque>
#include <optional>
#include <thread>

#include "common/redact.h"
#include "common/wall_clock.h"
#include "launch/debug_hooks.h"
#include "launch/identity_watch.h"
#include "logs/analyze.h"
#include "logs/catalogue.h"
#include "logs/fr/flight_recorder.h"
#include "logs/fr/fr_summary.h"
#include "logs/hang_trigger.h"
#include "probe/fs.h"
#include "probe/proc_probe.h"
#include "probe/process_identity.h"
#include "probe/regular_file.h"
#include "rules/rank_identity.h"

namespace dd::launch {

using namespace std::chrono_literals;

namespace {

// Whether the lines hold a hang trigger (of `kind` only, when given).
bool printed(const std::deque<std::string>& lines,
             std::optional<logs::HangTrigger::Kind> kind = std::nullopt) {
  for (const std::string& l : lines)
    if (auto t = logs::hang_trigger(l); t && (!kind || t->kind == *kind)) return true;
  return false;
}

// NCCL collective calls a worker's log shows (NCCL_DEBUG_SUBSYS=COLL), -1 when it shows none.
int64_t collectives_in(const std::string& log_path) {
  logs::LogsOptions opt;
  opt.paths = {log_path};
  opt.jobs = 1;
  logs::LogsResult r = logs::analyze_logs(opt, logs::Catalogue::builtin());
  int64_t n = -1;
  for (const auto& p : r.processes)
    for (const auto& [op, count] : p.coll_counts) n = (n < 0 ? 0 : n) + int64_t(count);
  return n;
}

double secs(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

std::optional<StopEvent> HangEvidence::check_triggers() {
  process::OutputTail* tail = w_.tail();
  if (!tail) return std::nullopt;
  const auto now = Clock::now();
  for (size_t i = 0; i < w_.all().size(); ++i) {
    LocalWorker& w = w_.all()[i];
    const uint64_t total = tail->lines_taken(i), bytes = tail->bytes_read(i);
    if (bytes == w.bytes_seen) continue;
    w.bytes_seen = bytes;
    if (total == w.lines_seen) {  // a line still growing (a progress bar redrawn with \r): output
      w.last_output = now;
      continue;
    }
    const auto& lines = tail->last_lines(i);
    const size_t fresh = size_t(std::min<uint64_t>(total - w.lines_seen, lines.size()));
    w.lines_seen = total;
    for (size_t k = lines.size() - fresh; k < lines.size(); ++k) {
      if (!logs::is_dump_echo(lines[k])) w.last_output = now;  // our dump request's echo is no progress
      auto t = logs::hang_trigger(lines[k]);
      if (!t) continue;
      StopEvent ev;
      ev.cause = StopCause::hang;
      ev.trigger_rank = w.rank;
      ev.trigger = redact_text(t->text);
      ev.detail = fmt::format("rank {} printed a {} line", w.rank, logs::hang_trigger_kind_name(t->kind));
      return ev;
    }
  }
  return std::nullopt;
}

bool HangEvidence::printed_trigger(size_t i) const { return printed(w_.tail()->last_lines(i)); }

void HangEvidence::gather(std::chrono::milliseconds wait, const AttemptStop& stop) {
  std::vector<size_t> asked;
  std::vector<LocalWorker>& ws = w_.all();
  for (size_t i = 0; i < ws.size(); ++i) {
    const std::string& stack_file = ws[i].hook.stack_file;
    if (!ws[i].running() || stack_file.empty()) continue;
    for (int pid : stack_hook_pids(read_stack_file(stack_file))) {
      if (::getpgid(pid) != ws[i].proc->pid) continue;  // gone, or not of this worker (a reused pid)
      note_stack_request(stack_file);
      if (::kill(pid, SIGUSR2) == 0) asked.push_back(i);
      break;
    }
  }
  if (!fr_requested_) request_fr_dumps();
  const auto grace = std::chrono::milliseconds(int64_t(s_.joined.job.grace_s * 1000));
  const auto until = Clock::now() + std::min<Clock::duration>(wait, grace);
  const bool watchdog = !stop->trigger.empty();
  process::OutputTail* tail = w_.tail();
  while (Clock::now() < until && !stop.grace_cut()) {
    bool all = true;
    if (watchdog && tail) {  // the other ranks print their own timeouts within moments: wait for them
      tail->poll();
      for (size_t i = 0; i < ws.size() && all; ++i)
        if (ws[i].running()) all = printed(tail->last_lines(i), logs::HangTrigger::Kind::watchdog_timeout);
    }
    for (size_t i : asked) all = all && !answered_stack(read_stack_file(ws[i].hook.stack_file)).empty();
    for (size_t i = 0; i < ws.size() && all; ++i)
      if (ws[i].fr_listening && ws[i].running())
        all = probe::regular_file_mtime(ws[i].hook.fr_asked) >= fr_requested_at_ ||
              probe::regular_file_mtime(ws[i].hook.fr_asked + ".none") >= fr_requested_at_;
    if (all) break;
    std::this_thread::sleep_for(50ms);
  }
}

void HangEvidence::request_fr_dumps() {
  fr_requested_ = true;
  fr_requested_at_ = unix_seconds_now() - 0.5;  // file times are coarser than the clock
  poke('1', &LocalWorker::fr_listening);
}

int HangEvidence::poke(char what, bool LocalWorker::*flag) {
  int listening = 0;
  for (LocalWorker& w : w_.all()) {
    w.*flag = false;
    if (w.hook.fr_request.empty() || !w.running()) continue;
    // A not_found Error (ENXIO) when no hook reads the FIFO: that worker is not listening.
    w.*flag = probe::local_fs().write_fifo(w.hook.fr_request, std::string_view(&what, 1)).ok();
    listening += w.*flag ? 1 : 0;
  }
  return listening;
}

void HangEvidence::take_snapshots(Clock::time_point now, bool quick) {
  for (size_t i = 0; i < w_.all().size(); ++i)
    if (w_.all()[i].running()) snapshots_[i] = snapshot(i, now, quick);
}

RankRecord HangEvidence::snapshot(size_t i, Clock::time_point now, bool quick) {
  RankRecord r = w_.record(i);
  LocalWorker& me = w_.all()[i];
  const pid_t pid = me.proc->pid;
  probe::ProcSnapshot p = probe::read_proc(pid);
  if (p.ok) {
    r.proc_state = p.state_name;
    r.wchan = p.wchan;
    r.cpu_s = p.cpu_s;
    me.cpu.sample(now, p.cpu_s);
    r.cpu_window_s = me.cpu.used_over(s_.joined.job.hang_timeout_s, now);
  }
  r.silent_s = secs(now - std::max(w_.t0(), me.last_output));
  if (!me.identity.count(rules::kNcclLibraryItem)) {
    const auto id = identity_items(probe::read_process_identity(pid));  // it may have loaded NCCL since
    if (!id.empty()) r.identity = id, r.identity_read = true;
  }
  if (!quick) r.collectives = collectives_in(me.log_path);  // a read of the whole log
  const std::string& stack_file = me.hook.stack_file;
  if (!stack_file.empty()) {
    std::string dump = answered_stack(read_stack_file(stack_file));
    if (!dump.empty()) {
      r.stack = dump.substr(0, 64 * 1024);
      r.stack_source = "faulthandler";
      return r;
    }
  }
  if (quick) {
    r.stack_error = stack_file.empty() || stack_hook_pids(read_stack_file(stack_file)).empty()
                        ? "no stack hook in this process (not Python, or started without launch's hook)"
                        : "the stack hook did not answer in time";
    return r;
  }
  probe::PyStack st = probe::py_spy_dump(pid, s_.path_env);
  r.stack = st.text;
  r.stack_source = st.text.empty() ? "" : "py-spy";
  r.stack_error =
      st.error.empty() || stack_file.empty() ? st.error : "the stack hook did not answer; " + st.error;
  return r;
}

// Per rank the dump that shows this attempt's end: after a clean end the exit dump; else the one launch
// asked for, or PyTorch's own, whichever was written for this stop.
void HangEvidence::read_flight_records(NodeRecord& n, const AttemptStop& stop) {
  const double attempt_start = double(wall_ms_at(w_.t0())) / 1000.0 - 1.0;
  // PyTorch's own dump shows the hang only when it was written after the hang was seen (its dump on a
  // watchdog timeout); an older file is from an earlier run or an earlier timeout.
  const double pytorch_fresh = stop ? unix_seconds_now() - secs(Clock::now() - stop.seen()) - 2.0 : 0;
  std::vector<logs::FlightRecord> records;
  std::vector<std::string> errors;
  const std::vector<LocalWorker>& ws = w_.all();
  for (const LocalWorker& w : ws)  // a live snapshot answered late: not this attempt's end
    if (const std::string& asked = w.hook.fr_asked; !asked.empty()) {
      (void)probe::local_fs().remove(asked + ".live");
      (void)probe::local_fs().remove(asked +
                                     ".live.none");  // a worker without torch.distributed (yet) answered so
    }
  for (size_t i = 0; i < n.ranks.size() && i < ws.size(); ++i) {
    const WorkerHookFiles& hook = ws[i].hook;
    std::string path;
    if (!stop) {
      if (probe::regular_file_mtime(hook.fr_exit) >= attempt_start) path = hook.fr_exit;
    } else if (fr_requested_ && probe::regular_file_mtime(hook.fr_asked) >= fr_requested_at_) {
      path = hook.fr_asked;
    } else if (probe::regular_file_mtime(hook.fr_dump) >= std::max(pytorch_fresh, attempt_start)) {
      path = hook.fr_dump;
    }
    if (path.empty()) continue;
    n.ranks[i].fr_dump = path;
    auto rec = logs::read_flight_record_file(path);
    if (!rec) {
      errors.push_back(path + ": " + rec.error().message());
      continue;
    }
    rec->rank = ws[i].rank;
    records.push_back(std::move(*rec));
  }
  if (records.empty() && errors.empty()) return;
  logs::FrSummary s = logs::summarize_flight_records(records);
  for (auto& rs : s.ranks) rs.node = n.node_rank;  // their times are on this node's clock
  s.errors.insert(s.errors.end(), errors.begin(), errors.end());
  n.flight_recorder = logs::fr_summary_to_json(s);  // each node's digest; node rank 0 merges them
}

}  // namespace dd::launch
