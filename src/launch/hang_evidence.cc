// The node agent's hang evidence (see attempt_agent.h): the first trigger line a worker prints starts a hang
// stop; before stopping, each live worker that registered launch's stack hook gets SIGUSR2 (faulthandler
// writes every thread's Python stack into its stack file) and a byte in its Flight Recorder request FIFO (the
// hook dumps the recorder without Python stacks, in milliseconds). After a watchdog timeout PyTorch also
// dumps by itself. The agent then waits, at most kHangEvidenceWait (an interrupt: kInterruptEvidenceWait),
// never past --grace nor after a second stop signal, for the stacks and the dumps to land. A job that ends
// well leaves each worker's exit dump: read then, it shows ranks that called the same collective with
// different sizes or types, which NCCL may not notice.
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
#include "launch/attempt_agent.h"
#include "logs/fr/flight_recorder.h"
#include "logs/fr/fr_summary.h"
#include "logs/hang_trigger.h"
#include "probe/fs.h"
#include "probe/regular_file.h"

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

}  // namespace

void AttemptAgent::check_triggers() {
  if (stop_ || !tail_) return;
  const auto now = Clock::now();
  for (size_t i = 0; i < workers_.size(); ++i) {
    LocalWorker& w = workers_[i];
    const uint64_t total = tail_->lines_taken(i), bytes = tail_->bytes_read(i);
    if (bytes == w.bytes_seen) continue;
    w.bytes_seen = bytes;
    if (total == w.lines_seen) {  // a line still growing (a progress bar redrawn with \r): output
      w.last_output = now;
      continue;
    }
    const auto& lines = tail_->last_lines(i);
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
      return raise_stop(ev);
    }
  }
}

bool AttemptAgent::printed_trigger(size_t i) const { return printed(tail_->last_lines(i)); }

void AttemptAgent::gather_hang_evidence(std::chrono::milliseconds wait) {
  std::vector<size_t> asked;
  for (size_t i = 0; i < sup_.workers().size(); ++i) {
    const process::WorkerState& w = proc(i);
    const std::string& stack_file = workers_[i].hook.stack_file;
    if (w.exited || stack_file.empty()) continue;
    for (int pid : stack_hook_pids(read_stack_file(stack_file))) {
      if (::getpgid(pid) != w.pid) continue;  // gone, or not of this worker (a reused pid)
      note_stack_request(stack_file);
      if (::kill(pid, SIGUSR2) == 0) asked.push_back(i);
      break;
    }
  }
  if (!fr_requested_) request_fr_dumps();
  const auto grace = std::chrono::milliseconds(int64_t(joined().job.grace_s * 1000));
  const auto until = Clock::now() + std::min<Clock::duration>(wait, grace);
  const bool watchdog = !stop_->trigger.empty();
  while (Clock::now() < until && !grace_cut()) {
    bool all = true;
    if (watchdog && tail_) {  // the other ranks print their own timeouts within moments: wait for them
      tail_->poll();
      for (size_t i = 0; i < sup_.workers().size() && all; ++i)
        if (!sup_.workers()[i].exited)
          all = printed(tail_->last_lines(i), logs::HangTrigger::Kind::watchdog_timeout);
    }
    for (size_t i : asked) all = all && !answered_stack(read_stack_file(workers_[i].hook.stack_file)).empty();
    for (size_t i = 0; i < sup_.workers().size() && all; ++i)
      if (workers_[i].fr_listening && !proc(i).exited)
        all = probe::regular_file_mtime(workers_[i].hook.fr_asked) >= fr_requested_at_ ||
              probe::regular_file_mtime(workers_[i].hook.fr_asked + ".none") >= fr_requested_at_;
    if (all) break;
    std::this_thread::sleep_for(50ms);
  }
}

// PyTorch's own dump shows the hang only when it was written after the hang was seen (its dump on a watchdog
// timeout); an older file is from an earlier run or an earlier timeout.
double AttemptAgent::fresh_dump_after() const {
  return unix_seconds_now() - std::chrono::duration<double>(Clock::now() - stop_seen_).count() - 2.0;
}

void AttemptAgent::request_fr_dumps() {
  fr_requested_ = true;
  fr_requested_at_ = unix_seconds_now() - 0.5;  // file times are coarser than the clock
  poke_fr_hooks('1', &LocalWorker::fr_listening);
}

int AttemptAgent::poke_fr_hooks(char what, bool LocalWorker::*flag) {
  int listening = 0;
  for (size_t i = 0; i < workers_.size(); ++i) {
    LocalWorker& w = workers_[i];
    w.*flag = false;
    if (w.hook.fr_request.empty() || i >= sup_.workers().size() || proc(i).exited) continue;
    // A not_found Error (ENXIO) when no hook reads the FIFO: that worker is not listening.
    w.*flag = probe::local_fs().write_fifo(w.hook.fr_request, std::string_view(&what, 1)).ok();
    listening += w.*flag ? 1 : 0;
  }
  return listening;
}

// Per rank the dump that shows this attempt's end: after a clean end the exit dump; else the one launch
// asked for, or PyTorch's own, whichever was written for this stop.
void AttemptAgent::read_flight_records(NodeRecord& n) {
  const double attempt_start = double(wall_ms(t0_)) / 1000.0 - 1.0;
  const double pytorch_fresh = stop_ ? fresh_dump_after() : 0;
  std::vector<logs::FlightRecord> records;
  std::vector<std::string> errors;
  for (const LocalWorker& w : workers_)  // a live snapshot answered late: not this attempt's end
    if (const std::string& asked = w.hook.fr_asked; !asked.empty()) {
      (void)probe::local_fs().remove(asked + ".live");
      (void)probe::local_fs().remove(asked +
                                     ".live.none");  // a worker without torch.distributed (yet) answered so
    }
  for (size_t i = 0; i < n.ranks.size() && i < workers_.size(); ++i) {
    const WorkerHookFiles& hook = workers_[i].hook;
    std::string path;
    if (!stop_) {
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
    rec->rank = workers_[i].rank;
    records.push_back(std::move(*rec));
  }
  if (records.empty() && errors.empty()) return;
  logs::FrSummary s = logs::summarize_flight_records(records);
  for (auto& rs : s.ranks) rs.node = n.node_rank;  // their times are on this node's clock
  s.errors.insert(s.errors.end(), errors.begin(), errors.end());
  n.flight_recorder = logs::fr_summary_to_json(s);  // each node's digest; node rank 0 merges them
}

}  // namespace dd::launch
