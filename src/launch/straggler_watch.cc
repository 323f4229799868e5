// StragglerWatch (see straggler_watch.h).
#include "launch/straggler_watch.h"

#include <fmt/format.h>

#include <ctime>

#include "common/wall_clock.h"
#include "launch/lateness_outputs.h"
#include "logs/fr/flight_recorder.h"
#include "probe/fs.h"
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

void StragglerWatch::tick(std::vector<LocalWorker>& workers, const Poke& poke) {
  const double interval = s_.joined.job.straggler_interval_s;
  if (!(interval > 0) || workers.empty()) return;
  const auto now = Clock::now();
  if (snapshot_pending_) {
    bool all = now - snapshot_asked_ > kSnapshotWait;
    for (size_t i = 0; i < workers.size() && !all; ++i) {
      const std::string& asked = workers[i].hook.fr_asked;
      all = !workers[i].snapshot_waiting || !workers[i].running() ||
            probe::regular_file_mtime(asked + ".live") >= snapshot_asked_at_ ||
            probe::regular_file_mtime(asked + ".live.none") >= snapshot_asked_at_;  // no recorder yet
    }
    if (all) read_snapshots(workers);
    return;
  }
  const auto period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval));
  if (next_snapshot_ == Clock::time_point{}) next_snapshot_ = now + period;  // the first, one period in
  if (now < next_snapshot_) return;
  next_snapshot_ = now + period;
  snapshot_asked_ = now;
  snapshot_asked_at_ = unix_seconds_now() - 0.5;  // file times are coarser than the clock
  // None when no hook listens (no torch.distributed yet, or the recorder is off).
  snapshot_pending_ = poke('2', &LocalWorker::snapshot_waiting) > 0;
}

void StragglerWatch::read_snapshots(std::vector<LocalWorker>& workers) {
  std::vector<logs::FlightRecord> records;
  for (LocalWorker& w : workers) {
    const std::string live = w.hook.fr_asked + ".live";
    if (!w.snapshot_waiting || probe::regular_file_mtime(live) < snapshot_asked_at_) continue;
    auto rec = logs::read_flight_record_file(live);
    // A snapshot, not evidence of the run's end: `logs` on the folder must not read it.
    (void)probe::local_fs().remove(live);
    if (!rec) continue;  // cut off or unreadable: the next snapshot will do
    rec->rank = w.rank;
    records.push_back(std::move(*rec));
  }
  snapshot_pending_ = false;
  for (LocalWorker& w : workers) w.snapshot_waiting = false;
  if (records.size() < 2) return;
  logs::FrSummary s = logs::summarize_flight_records(records);
  for (auto& r : s.ranks) r.node = s_.joined.node_rank;
  const auto found = logs::find_stragglers(s);
  if (!s_.args.metrics_file.empty())
    if (const std::string why =
            save_lateness_metrics(s_.args.metrics_file, s_.joined.job.job_id, attempt_, s, found);
        !why.empty() && !metrics_warned_) {
      say(s_.progress, ProgressKind::warning, why);
      metrics_warned_ = true;
    }
  say_stragglers(found);
}

// Every straggler's sentence at each snapshot, unless it is the same as the last (the figures in it are
// rounded); "no rank makes the others wait any more" once they are gone.
void StragglerWatch::say_stragglers(const std::vector<logs::FrStraggler>& found) {
  std::string said, first;  // every straggler's sentence; the first one's
  for (const auto& g : found) {
    const std::string text = logs::straggler_text(g);
    said += (said.empty() ? "" : "; ") + text;
    if (first.empty()) first = text;
  }
  if (said == said_) return;
  said_ = said;
  if (said.empty()) {
    if (!seen_.empty()) say(s_.progress, ProgressKind::progress, "no rank makes the others wait any more");
    return;
  }
  say(s_.progress, ProgressKind::progress, "straggler: " + said);
  StragglerSeen seen{
      .at = clock_time(), .rank = found.front().rank, .text = first, .on_gpu = found.front().on_gpu};
  if (seen_.size() < kMaxSeen)
    seen_.push_back(std::move(seen));
  else
    seen_.back() = std::move(seen);  // the latest kept in the last place
}

}  // namespace dd::launch
