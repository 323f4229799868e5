// The live straggler check (issue 39): every straggler_interval_s, a "2" into each live worker's Flight
// Recorder FIFO (launch's hook dumps the recorder without stacks, in milliseconds, into its asked-for file +
// ".live", which is read and removed: a snapshot mid-run read later by `logs` would look like a hang);
// once every asked worker has written (or kSnapshotWait passed), this node's dumps are summarized and
// compared (logs/fr/fr_straggler.h: on this node's clock, so no offset between nodes enters) and a rank the
// others wait for is said on stderr at each snapshot (its figures move), and kept for the report. The
// snapshot is what the recorder holds then: the last collectives before it, so a slowdown shows within one
// interval.
#include <fmt/format.h>
#include <unistd.h>

#include <ctime>

#include "common/wall_clock.h"
#include "launch/attempt_agent.h"
#include "launch/lateness_outputs.h"
#include "logs/fr/flight_recorder.h"
#include "logs/fr/fr_straggler.h"
#include "probe/regular_file.h"

namespace dd::launch {

namespace {

constexpr auto kSnapshotWait = std::chrono::seconds(5);
constexpr size_t kMaxSeen = 16;  // stragglers kept for the report

std::string clock_time() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  return fmt::format("{:02}:{:02}:{:02}", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

}  // namespace

void AttemptAgent::watch_stragglers() {
  const double interval = joined().job.straggler_interval_s;
  if (!(interval > 0) || stop_ || workers_.empty()) return;
  const auto now = Clock::now();
  if (snapshot_pending_) {
    bool all = now - snapshot_asked_ > kSnapshotWait;
    for (size_t i = 0; i < sup_.workers().size() && !all; ++i) {
      const std::string& asked = workers_[i].hook.fr_asked;
      all = !workers_[i].snapshot_waiting || proc(i).exited ||
            probe::regular_file_mtime(asked + ".live") >= snapshot_asked_at_ ||
            probe::regular_file_mtime(asked + ".live.none") >= snapshot_asked_at_;  // no recorder yet
    }
    if (all) read_straggler_snapshots();
    return;
  }
  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval));
  if (next_snapshot_ == Clock::time_point{}) next_snapshot_ = now + period;  // the first, one period in
  if (now < next_snapshot_) return;
  next_snapshot_ = now + period;
  snapshot_asked_ = now;
  snapshot_asked_at_ = unix_seconds_now() - 0.5;  // file times are coarser than the clock
  // None when no hook listens (no torch.distributed yet, or the recorder is off).
  snapshot_pending_ = poke_fr_hooks('2', &LocalWorker::snapshot_waiting) > 0;
}

void AttemptAgent::read_straggler_snapshots() {
  std::vector<logs::FlightRecord> records;
  for (LocalWorker& w : workers_) {
    const std::string live = w.hook.fr_asked + ".live";
    if (!w.snapshot_waiting || probe::regular_file_mtime(live) < snapshot_asked_at_) continue;
    auto rec = logs::read_flight_record_file(live);
    ::unlink(
        live.c_str());   // a snapshot, not evidence of the run's end: `logs` on the folder must not read it
    if (!rec) continue;  // cut off or unreadable: the next snapshot will do
    rec->rank = w.rank;
    records.push_back(std::move(*rec));
  }
  snapshot_pending_ = false;
  for (LocalWorker& w : workers_) w.snapshot_waiting = false;
  if (records.size() < 2) return;
  logs::FrSummary s = logs::summarize_flight_records(records);
  for (auto& r : s.ranks) r.node = joined().node_rank;
  const auto found = logs::find_stragglers(s);
  if (!s_.args.metrics_file.empty())
    if (const std::string why =
            save_lateness_metrics(s_.args.metrics_file, joined().job.job_id, attempt_, s, found);
        !why.empty() && !metrics_warned_) {
      say(s_.progress, ProgressKind::warning, why);
      metrics_warned_ = true;
    }
  std::string said, first;  // every straggler's sentence; the first one's
  for (const auto& g : found) {
    const std::string text = logs::straggler_text(g);
    said += (said.empty() ? "" : "; ") + text;
    if (first.empty()) first = text;
  }
  if (said == straggler_said_) return;
  // The same sentence twice in a row is said once (the figures in it are rounded).
  straggler_said_ = said;
  if (said.empty()) {
    if (!stragglers_seen_.empty())
      say(s_.progress, ProgressKind::progress, "no rank makes the others wait any more");
    return;
  }
  say(s_.progress, ProgressKind::progress, "straggler: " + said);
  StragglerSeen seen{
      .at = clock_time(), .rank = found.front().rank, .text = first, .on_gpu = found.front().on_gpu};
  if (stragglers_seen_.size() < kMaxSeen)
    stragglers_seen_.push_back(std::move(seen));
  else
    stragglers_seen_.back() = std::move(seen);  // the latest kept in the last place
}

}  // namespace dd::launch
