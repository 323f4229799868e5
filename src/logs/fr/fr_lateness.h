// Every rank's lateness over a run (issue 39's gauges and chart), beside fr_straggler.h's verdict: for each
// process group and clock, each rank's lateness in each collective every rank created (its arrival after the
// earliest rank's), its median, and the part of the others' time spent waiting for it; where the dumps have
// GPU times, the same from those (on_gpu: clock-free, across nodes). A rank that is not a straggler still has
// its figures: the gauges show everyone. Pure functions.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "logs/fr/fr_summary.h"

namespace dd::logs {

struct FrRankLateness {
  std::string pg_name, pg_desc;
  int rank = -1;
  int node = -1;                  // the clock compared on (-1: all ranks as one, or GPU times)
  bool on_gpu = false;            // from GPU times, else from arrivals
  size_t compared = 0;            // collectives compared
  double late_ms = 0;             // its median lateness over them
  double others_wait_share = -1;  // the part of the others' time spent waiting for it (0..1); -1: not
                                  // computed (over kLatenessMaxRanks ranks compared together)
  std::vector<std::pair<double, double>> series;  // (seconds since the first compared collective, late ms)
};

inline constexpr size_t kLatenessMaxRanks = 64;  // wait shares cost ranks^2 x collectives

// Sorted by group, signal (arrivals first), node, rank.
std::vector<FrRankLateness> rank_lateness(const FrSummary& s);

// The figures without the series: [{"pg", "rank", "node", "signal", "compared", "late_ms",
// "others_wait_share"}] (the share left out where not computed).
nlohmann::json rank_lateness_json(const std::vector<FrRankLateness>& v);

}  // namespace dd::logs
