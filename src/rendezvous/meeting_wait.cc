// Waiting for every rank of a meeting (see meeting_wait.h): rounds of Store::check over the keys not yet
// seen.
#include "rendezvous/meeting_wait.h"

#include <algorithm>
#include <numeric>
#include <thread>

namespace dd::rendezvous {

namespace {

// The deadline of one store call of the wait.
Deadline call_deadline(const WaitForAll& w) {
  Deadline d = w.store_deadline == Deadline{} ? w.until : w.store_deadline;
  if (w.call_slice) d = std::min(d, Clock::now() + *w.call_slice);
  return d;
}

// The ranks still missing, ascending (for progress and the outcome).
std::vector<int> sorted_missing(const WaitForAll& w, const std::vector<size_t>& waiting) {
  std::vector<int> m;
  for (size_t i : waiting) m.push_back(w.ranks[i]);
  std::sort(m.begin(), m.end());
  return m;
}

}  // namespace

std::vector<int> all_ranks(int world) {
  std::vector<int> r(std::max(world, 0));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

std::vector<int> gone_ranks(Store& s, const MeetingKeys& keys, const std::vector<int>& ranks,
                            Deadline until) {
  std::vector<std::string> names;
  for (int r : ranks) names.push_back(keys.live(r));
  std::vector<int> gone;
  if (names.empty()) return gone;
  auto have = s.check(names, until);
  if (!have) return gone;
  for (size_t i = 0; i < ranks.size() && i < have->size(); ++i)
    if (!(*have)[i]) gone.push_back(ranks[i]);
  return gone;
}

Result<WaitOutcome> wait_for_all(Store& s, const MeetingKeys& keys, const WaitForAll& w) {
  WaitOutcome out;
  out.arrived.resize(w.ranks.size());
  std::vector<size_t> waiting(w.ranks.size());  // indexes into w.ranks
  std::iota(waiting.begin(), waiting.end(), size_t{0});
  bool answered = false;
  size_t arrived = 0, last_count = SIZE_MAX;
  auto last_progress = Clock::now();
  for (;;) {
    if (w.stop && w.stop()) {
      out.stopped = true;
      break;
    }
    std::vector<std::string> names;
    for (size_t i : waiting) names.push_back(keys.of(w.what, w.ranks[i]));
    auto have =
        names.empty() ? Result<std::vector<bool>>(std::vector<bool>{}) : s.check(names, call_deadline(w));
    if (!have && answered && Clock::now() >= w.until) break;  // the deadline passed inside the call
    if (!have) return have.error();
    answered = true;
    std::vector<size_t> still;
    bool enough = false;  // on_arrival saw what ends the wait
    for (size_t j = 0; j < waiting.size(); ++j)
      if (j < have->size() && (*have)[j]) {
        out.arrived[waiting[j]] = Clock::now();
        ++arrived;
        if (w.on_arrival && w.on_arrival(w.ranks[waiting[j]])) enough = true;
      } else {
        still.push_back(waiting[j]);
      }
    if (w.liveness && !still.empty()) {
      std::vector<int> ranks;
      for (size_t i : still) ranks.push_back(w.ranks[i]);
      std::vector<int> gone = gone_ranks(s, keys, ranks, call_deadline(w));
      std::erase_if(still, [&](size_t i) { return std::ranges::count(gone, w.ranks[i]) > 0; });
      out.gone.insert(out.gone.end(), gone.begin(), gone.end());
    }
    waiting = std::move(still);
    if (enough) out.stopped = true;
    if (enough || waiting.empty() || Clock::now() >= w.until) break;
    if (w.progress && ((w.progress_on_change && arrived != last_count) ||
                       Clock::now() - last_progress >= w.progress_every)) {
      const std::vector<int> missing = sorted_missing(w, waiting);
      w.progress(WaitProgress{missing, arrived, w.ranks.size()});
      last_count = arrived;
      last_progress = Clock::now();
    }
    std::this_thread::sleep_for(w.poll);
  }
  out.missing = sorted_missing(w, waiting);
  std::sort(out.gone.begin(), out.gone.end());
  return out;
}

}  // namespace dd::rendezvous
