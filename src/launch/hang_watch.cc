// CpuWindow, Beat and BeatBoard (see hang_watch.h).
#include "launch/hang_watch.h"

#include <fmt/format.h>

#include "report/rank_ranges.h"

namespace dd::launch {

void CpuWindow::sample(HangClock::time_point t, double cpu_s) {
  samples_.emplace_back(t, cpu_s);
  // Keep a bounded history: drop samples once a newer one is older than any window we are asked about.
  while (samples_.size() > 4096) samples_.pop_front();
}

double CpuWindow::used_over(double window_s, HangClock::time_point now) const {
  if (samples_.empty()) return -1;
  auto from = now - std::chrono::duration_cast<HangClock::duration>(std::chrono::duration<double>(window_s));
  if (samples_.front().first > from) return -1;
  double base = samples_.front().second;
  for (const auto& [t, cpu] : samples_) {
    if (t > from) break;
    base = cpu;
  }
  return samples_.back().second - base;
}

void to_json(nlohmann::json& j, const Beat& b) {
  j = {{"seq", b.seq},     {"silent_s", b.silent_s}, {"idle", b.idle},
       {"alive", b.alive}, {"done", b.done},         {"all_spoke", b.all_spoke}};
}

void from_json(const nlohmann::json& j, Beat& b) {
  b.seq = j.value("seq", int64_t(0));
  b.silent_s = j.value("silent_s", 0.0);
  b.idle = j.value("idle", std::vector<int>{});
  b.alive = j.value("alive", 0);
  b.done = j.value("done", false);
  b.all_spoke = j.value("all_spoke", true);
}

BeatBoard::BeatBoard(int nnodes, HangClock::time_point start) : nodes_(size_t(nnodes)) {
  for (auto& n : nodes_) n.changed = start;
}

void BeatBoard::update(int node, const Beat& b, HangClock::time_point now) {
  if (node < 0 || size_t(node) >= nodes_.size()) return;
  Seen& s = nodes_[size_t(node)];
  if (!s.any || b.seq != s.beat.seq) s.changed = now;
  s.beat = b;
  s.any = true;
}

int BeatBoard::lost_node(double lost_after_s, HangClock::time_point now, double* silent_for) const {
  for (size_t n = 0; n < nodes_.size(); ++n) {
    const Seen& s = nodes_[n];
    double age = std::chrono::duration<double>(now - s.changed).count();
    if (!s.beat.done && age > lost_after_s) {
      if (silent_for) *silent_for = age;
      return int(n);
    }
  }
  return -1;
}

bool BeatBoard::hung(double window_s, std::string* why) const {
  std::vector<int> idle;
  double quiet = -1;
  bool any_alive = false, all_spoke = true;
  for (const Seen& s : nodes_) {
    if (!s.any) return false;
    if (s.beat.alive == 0) continue;
    any_alive = true;
    if (s.beat.silent_s < window_s) return false;
    quiet = quiet < 0 ? s.beat.silent_s : std::min(quiet, s.beat.silent_s);
    all_spoke = all_spoke && s.beat.all_spoke;
    idle.insert(idle.end(), s.beat.idle.begin(), s.beat.idle.end());
  }
  if (!any_alive || (idle.empty() && !all_spoke)) return false;
  std::sort(idle.begin(), idle.end());
  if (why)
    *why = fmt::format("no worker wrote any output for {:.1f} s (--hang-timeout {:.0f}){}", quiet, window_s,
                       idle.empty() ? std::string(" while every rank used CPU (waiting inside NCCL?)")
                                    : fmt::format(" and {} used no CPU", report::ranks_phrase(idle)));
  return true;
}

}  // namespace dd::launch
