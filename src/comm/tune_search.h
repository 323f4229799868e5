// The search behind `bench --tune`, apart from how a setting is measured: candidate NCCL settings grouped by
// the variable they set, tried alone, then added greedily to the best combination so far (one per
// variable) while each step gains, within a time budget. The measuring function is passed in, so the
// search is tested on recorded numbers.
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rules/engine_choice.h"

namespace dd::comm {

// One value of one knob: an environment variable, or buffer registration, or CUDA graphs.
struct TuneSetting {
  std::string knob;  // what it sets ("NCCL_ALGO", "registration", "graph"); one value per knob in a combo
  std::string name;  // "NCCL_ALGO=Tree"
  std::vector<std::pair<std::string, std::string>> env;
  bool reg = false, graph = false, window = false;
};
using TuneCombo = std::vector<TuneSetting>;

std::string combo_name(const TuneCombo& c);

// Bus bytes over all sizes divided by the time they took (GB/s): one size gives its busbw; 0 if any is 0.
double tune_score(
    const std::vector<double>& per_size_busbw,
    const std::vector<double>& bus_bytes);  // "(default)" when empty, else names joined by " + "

// The settings NCCL documents for intra-node bandwidth (channels, algorithm, protocol, buffer and chunk
// sizes, threads), registration and CUDA graphs; none for another engine.
std::vector<TuneSetting> tune_candidates(rules::EngineKind engine);

struct TuneRow {
  std::string name;
  std::optional<double> score;   // busbw over all sizes (bus bytes / time); nullopt: the run failed
  std::vector<double> per_size;  // busbw at each size
};
struct TuneSearchResult {
  std::vector<TuneRow> rows;  // in the order measured; rows[0] is the default
  TuneCombo best;             // empty: the default
  double base = 0, best_score = 0;
  bool budget_hit = false;  // stopped early: the time budget ran out
};

// measure(combo) -> nullopt on failure, else per-size busbw (bus bytes / time at each size), with the
// combined score computed by the caller-provided sizes' weights (bus bytes per size).
using TuneMeasure = std::function<std::optional<std::vector<double>>(const TuneCombo&)>;
using TuneClock = std::function<std::chrono::steady_clock::time_point()>;

// min_gain: the relative gain a step must bring to be kept (noise is about 1%). reserved_runs: runs the
// caller makes after the search within the same budget (the winner confirmed, the default again), counted at
// the slowest run seen: a trial starts only when it and they still fit.
TuneSearchResult run_tune_search(const std::vector<TuneSetting>& cands, const std::vector<double>& bus_bytes,
                                 const TuneMeasure& measure, std::chrono::milliseconds budget,
                                 double min_gain = 0.005,
                                 const TuneClock& now = std::chrono::steady_clock::now,
                                 double reserved_runs = 0);

}  // namespace dd::comm
