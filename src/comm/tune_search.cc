// Greedy search over NCCL settings (see tune_search.h).
#include "comm/tune_search.h"

#include <algorithm>

namespace dd::comm {

namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

TuneSetting env_setting(const std::string& var, const std::string& value) {
  return {var, var + "=" + value, Env{{var, value}}};
}

}  // namespace

double tune_score(const std::vector<double>& per_size, const std::vector<double>& bus_bytes) {
  double bytes = 0, seconds = 0;
  for (size_t i = 0; i < per_size.size() && i < bus_bytes.size(); ++i) {
    if (per_size[i] <= 0) return 0;
    bytes += bus_bytes[i];
    seconds += bus_bytes[i] / (per_size[i] * 1e9);
  }
  return seconds > 0 ? bytes / seconds / 1e9 : 0;
}

namespace {

bool has_knob(const TuneCombo& c, const std::string& knob) {
  return std::any_of(c.begin(), c.end(), [&](const TuneSetting& s) { return s.knob == knob; });
}

class Search {
 public:
  Search(const std::vector<double>& bus_bytes, const TuneMeasure& measure, std::chrono::milliseconds budget,
         const TuneClock& now, double reserved_runs, TuneSearchResult& out)
      : bus_bytes_(bus_bytes),
        measure_(measure),
        now_(now),
        end_(now() + budget),
        reserved_runs_(reserved_runs),
        out_(out) {}

  // The slowest run so far must still fit before the budget's end, with the runs reserved after the search
  // once there is a winner to confirm.
  bool time_left() {
    const double reserve = winner_ ? reserved_runs_ : 0;
    const auto need = std::chrono::duration_cast<std::chrono::milliseconds>(slowest_ * (1 + reserve));
    if (now_() + need <= end_) return true;
    out_.budget_hit = true;
    return false;
  }

  // A setting beat the default by the gain that counts: from now on the confirmation's runs are reserved.
  void found_winner() { winner_ = true; }

  double try_combo(const TuneCombo& c) {
    const auto t0 = now_();
    auto per_size = measure_(c);
    slowest_ = std::max(slowest_, std::chrono::duration_cast<std::chrono::milliseconds>(now_() - t0));
    TuneRow row{combo_name(c), std::nullopt, {}};
    if (per_size) {
      row.per_size = *per_size;
      row.score = tune_score(*per_size, bus_bytes_);
    }
    out_.rows.push_back(row);
    return row.score.value_or(0);
  }

 private:
  const std::vector<double>& bus_bytes_;
  const TuneMeasure& measure_;
  const TuneClock& now_;
  std::chrono::steady_clock::time_point end_;
  double reserved_runs_ = 0;
  bool winner_ = false;  // some setting beat the default: the runs after the search will be made
  std::chrono::milliseconds slowest_{0};
  TuneSearchResult& out_;
};

}  // namespace

std::string combo_name(const TuneCombo& c) {
  if (c.empty()) return "(default)";
  std::string s;
  for (const auto& x : c) s += (s.empty() ? "" : " + ") + x.name;
  return s;
}

std::vector<TuneSetting> tune_candidates(rules::EngineKind engine) {
  if (engine != rules::EngineKind::nccl) return {};  // every knob here is NCCL's: Gloo has none of them
  return {
      env_setting("NCCL_MIN_NCHANNELS", "16"),
      env_setting("NCCL_MIN_NCHANNELS", "24"),
      env_setting("NCCL_MIN_NCHANNELS", "32"),
      env_setting("NCCL_MIN_NCHANNELS", "64"),
      env_setting("NCCL_ALGO", "Tree"),
      env_setting("NCCL_ALGO", "Ring"),
      env_setting("NCCL_PROTO", "Simple"),
      env_setting("NCCL_BUFFSIZE", "8388608"),
      env_setting("NCCL_BUFFSIZE", "16777216"),
      env_setting("NCCL_NTHREADS", "512"),
      env_setting("NCCL_P2P_NVL_CHUNKSIZE", "1048576"),
      env_setting("NCCL_CUMEM_ENABLE", "0"),
      {"registration", "buffers registered (ncclCommRegister)", {}, true, false},
      {"graph", "CUDA graph of the timed runs", {}, false, true},
      // Window and registration are two ways to hand NCCL the buffers: one knob, never both.
      {"registration",
       "buffers in symmetric windows (ncclMemAlloc + ncclCommWindowRegister)",
       {},
       false,
       false,
       true},
  };
}

TuneSearchResult run_tune_search(const std::vector<TuneSetting>& cands, const std::vector<double>& bus_bytes,
                                 const TuneMeasure& measure, std::chrono::milliseconds budget,
                                 double min_gain, const TuneClock& now, double reserved_runs) {
  TuneSearchResult out;
  Search s(bus_bytes, measure, budget, now, reserved_runs, out);
  out.base = out.best_score = s.try_combo({});
  // Round 1: each setting alone. Those that beat the default are the pool for the greedy rounds.
  std::vector<std::pair<double, size_t>> gains;
  for (size_t i = 0; i < cands.size() && s.time_left(); ++i) {
    double v = s.try_combo({cands[i]});
    if (v > out.base) gains.push_back({v, i});
    if (v > out.base * (1 + min_gain)) s.found_winner();
  }
  std::sort(gains.rbegin(), gains.rend());
  if (!gains.empty() && gains[0].first > out.base * (1 + min_gain)) {
    out.best = {cands[gains[0].second]};
    out.best_score = gains[0].first;
  }
  // Greedy rounds: add the helpful setting of another knob that gains most; stop when none gains.
  while (!out.best.empty() && s.time_left()) {
    double round_best = out.best_score;
    TuneCombo round_combo;
    for (const auto& [v, i] : gains) {
      if (has_knob(out.best, cands[i].knob) || !s.time_left()) continue;
      TuneCombo c = out.best;
      c.push_back(cands[i]);
      double score = s.try_combo(c);
      if (score > round_best) {
        round_best = score;
        round_combo = c;
      }
    }
    if (round_combo.empty() || round_best <= out.best_score * (1 + min_gain)) break;
    out.best = round_combo;
    out.best_score = round_best;
  }
  return out;
}

}  // namespace dd::comm
