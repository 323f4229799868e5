// The node agent's hang evidence (see attempt_agent.h): the first trigger line a worker prints starts a hang
// stop; before stopping, each live worker that registered launch's stack hook gets SIGUSR2 (faulthandler
// writes every thread's Python stack into its stack file). Flight Recorder dumps are asked for early, when a
// node has been silent for half of --hang-timeout (a byte in each worker's dump pipe): PyTorch 2.11 took
// about 6 s to write an on-demand dump of a rank hung in a collective (it symbolizes the Python stacks under
// the GIL), too long to wait for once the hang is declared; a dump of a job that then goes on costs it
// nothing more. After a watchdog timeout PyTorch dumps by itself. The agent then waits, at most kEvidenceWait
// and never past --grace, for the stacks and the dumps to land.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <deque>
#include <fstream>
#include <thread>

#include "common/redact.h"
#include "launch/attempt_agent.h"
#include "logs/flight_recorder.h"
#include "logs/fr_summary.h"
#include "logs/hang_trigger.h"

namespace dd::launch {

using namespace std::chrono_literals;

namespace {

constexpr auto kEvidenceWait = 3s;
// Epoch seconds of the file's last change, -1 when it is not there.
double mtime_of(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  return double(st.st_mtim.tv_sec) + double(st.st_mtim.tv_nsec) / 1e9;
}

double epoch_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// PyTorch makes a rank's dump pipe when its Flight Recorder is on: only such a rank can write a dump.
bool is_fifo(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

bool printed_timeout(const std::deque<std::string>& lines) {
  for (const std::string& l : lines)
    if (auto t = logs::hang_trigger(l); t && t->kind == logs::HangTrigger::Kind::watchdog_timeout)
      return true;
  return false;
}

}  // namespace

void AttemptAgent::check_triggers() {
  if (stop_ || !tail_) return;
  const auto now = Clock::now();
  for (size_t i = 0; i < lines_seen_.size(); ++i) {
    const uint64_t total = tail_->lines_taken(i), bytes = tail_->bytes_read(i);
    if (bytes == bytes_seen_[i]) continue;
    bytes_seen_[i] = bytes;
    if (total == lines_seen_[i]) {  // a line still growing (a progress bar redrawn with \r): output
      last_output_[i] = now;
      continue;
    }
    const auto& lines = tail_->last_lines(i);
    const size_t fresh = size_t(std::min<uint64_t>(total - lines_seen_[i], lines.size()));
    lines_seen_[i] = total;
    for (size_t k = lines.size() - fresh; k < lines.size(); ++k) {
      if (!logs::is_dump_echo(lines[k])) last_output_[i] = now;  // our dump request's echo is no progress
      auto t = logs::hang_trigger(lines[k]);
      if (!t) continue;
      StopEvent ev;
      ev.cause = StopCause::hang;
      ev.trigger_rank = ranks_[i];
      ev.trigger = redact_text(t->text);
      ev.detail = fmt::format("rank {} printed a {} line", ranks_[i], logs::hang_trigger_kind_name(t->kind));
      return raise_stop(ev);
    }
  }
}

void AttemptAgent::gather_hang_evidence() {
  std::vector<size_t> asked;
  for (size_t i = 0; i < sup_.workers().size(); ++i) {
    const process::WorkerState& w = sup_.workers()[i];
    if (w.exited || stack_files_[i].empty()) continue;
    for (int pid : stack_hook_pids(read_stack_file(stack_files_[i]))) {
      if (::getpgid(pid) != w.pid) continue;  // gone, or not of this worker (a reused pid)
      std::ofstream(stack_files_[i], std::ios::app) << "# distdoctor: stacks requested\n";
      if (::kill(pid, SIGUSR2) == 0) asked.push_back(i);
      break;
    }
  }
  if (stop_->trigger.empty() && !fr_requested_) request_fr_dumps();  // a watchdog timeout dumps by itself
  const double started = fresh_dump_after();
  const auto grace = std::chrono::milliseconds(int64_t(joined().job.grace_s * 1000));
  const auto until = Clock::now() + std::min<Clock::duration>(kEvidenceWait, grace);
  const bool watchdog = !stop_->trigger.empty();
  while (Clock::now() < until) {
    bool all = true;
    if (watchdog && tail_) {  // the other ranks print their own timeouts within moments: wait for them
      tail_->poll();
      for (size_t i = 0; i < sup_.workers().size() && all; ++i)
        if (!sup_.workers()[i].exited) all = printed_timeout(tail_->last_lines(i));
    }
    for (size_t i : asked) all = all && !answered_stack(read_stack_file(stack_files_[i])).empty();
    for (size_t i = 0; i < fr_dumps_.size() && all; ++i)
      if (!fr_dumps_[i].empty() && !sup_.workers()[i].exited && is_fifo(fr_pipes_[i]))
        all = mtime_of(fr_dumps_[i]) >= started;
    if (all) break;
    std::this_thread::sleep_for(50ms);
  }
}

// A dump shows the hang only when it was written after the last request (the one made in this silence), else
// after the hang was seen (PyTorch's own dump on its timeout): a dump asked for while the job started up, or
// during an earlier quiet spell, holds none of the collectives the ranks now wait in (seen on 4x H200).
double AttemptAgent::fresh_dump_after() const {
  if (fr_requested_) return fr_requested_at_;
  return epoch_now() - std::chrono::duration<double>(Clock::now() - stop_seen_).count() - 2.0;
}

void AttemptAgent::request_fr_dumps() {
  fr_requested_ = true;
  fr_requested_at_ = epoch_now() - 0.5;  // file times are coarser than the clock
  for (size_t i = 0; i < fr_pipes_.size(); ++i) {
    if (fr_pipes_[i].empty() || sup_.workers()[i].exited) continue;
    int fd = ::open(fr_pipes_[i].c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // ENXIO: nobody reads it
    if (fd < 0) continue;
    (void)!::write(fd, "1", 1);
    ::close(fd);
  }
}

void AttemptAgent::read_flight_records(NodeRecord& n) {
  const double started = fresh_dump_after();
  std::vector<logs::FlightRecord> records;
  std::vector<std::string> errors;
  for (size_t i = 0; i < n.ranks.size() && i < fr_dumps_.size(); ++i) {
    if (mtime_of(fr_dumps_[i]) < started) continue;  // none, or one from before the hang
    n.ranks[i].fr_dump = fr_dumps_[i];
    auto rec = logs::read_flight_record_file(fr_dumps_[i]);
    if (!rec) {
      errors.push_back(fr_dumps_[i] + ": " + rec.error().message());
      continue;
    }
    rec->rank = ranks_[i];
    records.push_back(std::move(*rec));
  }
  if (records.empty() && errors.empty()) return;
  logs::FrSummary s = logs::summarize_flight_records(records);
  s.errors.insert(s.errors.end(), errors.begin(), errors.end());
  n.flight_recorder = logs::fr_summary_to_json(s);  // each node's digest; node rank 0 merges them
}

}  // namespace dd::launch
