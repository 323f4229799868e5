// The rows the straggler analysis compares (fr_straggler.h, fr_lateness.h): for the ranks (tracks) of one
// process group on one clock, each collective every one of them created (and timed, for GPU times) with the
// value compared per rank, and the helpers both analyses share. Pure functions.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "logs/fr/fr_straggler.h"
#include "logs/fr/fr_summary.h"

namespace dd::logs::fr_rows {

// What a row compares: when each rank created the collective (its arrival, on its node's clock), or, with
// NCCL timing, minus its GPU time (clock-free: the collective ends together on every rank, so the shortest
// started last and "latest" is again the highest value).
enum class Signal { arrival, gpu };

struct Track {
  int rank, node;
  const FrPgTrack* t;
  int64_t at(const std::vector<int64_t>& v, int64_t seq) const;
};

struct Row {
  int64_t seq;
  std::vector<int64_t> t;    // per track: the compared value (an arrival, or minus a GPU time)
  std::vector<int64_t> arr;  // per track: its arrival (the wall time the window spans)
  int64_t first = 0;         // the earliest of t: lateness is measured from it
};

inline constexpr int64_t kMarginNs = kStragglerMarginNs;  // last by less than this is a tie

double median_ms(std::vector<int64_t> ns);
// The collectives every track created (and timed, for Signal::gpu), in seq order.
std::vector<Row> common_rows(const std::vector<Track>& tracks, Signal sig);
// The track that came last in row r by kMarginNs, or -1.
int last_of(const Row& r);
// The part of track o's time, over rows [from, rows.size()), spent waiting for track c (0..1).
double wait_share(const std::vector<Row>& rows, size_t from, size_t o, size_t c, Signal sig);
// A summary's tracks: per group and clock (node) those with arrivals, per group those with GPU times (any
// clock), and each group's description.
struct Groups {
  std::map<std::pair<std::string, int>, std::vector<Track>> clocks;
  std::map<std::string, std::vector<Track>> timed;
  std::map<std::string, std::string> descs;
};
Groups group_tracks(const FrSummary& s);

// The earliest arrival of a row (seconds of the run are measured between these).
int64_t earliest_arrival(const Row& r);

}  // namespace dd::logs::fr_rows
