// The --tune search on recorded numbers: it finds the best combination one knob at a time, keeps one value
// per knob, ignores gains within noise, survives failing settings, and stops at its time budget.
#include "comm/tune_search.h"

#include <gtest/gtest.h>

#include <map>

namespace dd::comm {
namespace {

TuneSetting env(const std::string& var, const std::string& value) {
  return {var, var + "=" + value, {{var, value}}};
}

// busbw at one size: the default's 100, each setting adding its gain (settings of one knob would clash).
struct Table {
  std::map<std::string, double> gain;  // name -> added GB/s
  std::vector<std::string> failing;
  int runs = 0;
  std::optional<std::vector<double>> operator()(const TuneCombo& c) {
    ++runs;
    double v = 100;
    for (const auto& s : c) {
      for (const auto& f : failing)
        if (s.name == f) return std::nullopt;
      v += gain[s.name];
    }
    return std::vector<double>{v};
  }
};

TEST(TuneSearch, CombinesTheHelpfulSettingsOfDifferentKnobs) {
  const std::vector<TuneSetting> cands = {env("A", "1"), env("A", "2"), env("B", "1"), env("C", "1"),
                                          env("D", "1")};
  Table t;
  t.gain = {{"A=1", 3}, {"A=2", 5}, {"B=1", 4}, {"C=1", 2}, {"D=1", -3}};
  auto r = run_tune_search(cands, {1e9}, std::ref(t), std::chrono::minutes(5));
  EXPECT_EQ(combo_name(r.best), "A=2 + B=1 + C=1");  // never A=1 beside A=2, never the harmful D
  EXPECT_DOUBLE_EQ(r.base, 100);
  EXPECT_DOUBLE_EQ(r.best_score, 111);
  EXPECT_FALSE(r.budget_hit);
  EXPECT_EQ(r.rows.front().name, "(default)");
}

TEST(TuneSearch, GainsWithinNoiseKeepTheDefault) {
  Table t;
  t.gain = {{"A=1", 0.2}, {"B=1", 0.3}};
  auto r = run_tune_search({env("A", "1"), env("B", "1")}, {1e9}, std::ref(t), std::chrono::minutes(5));
  EXPECT_TRUE(r.best.empty()) << combo_name(r.best);
  EXPECT_EQ(r.rows.size(), 3u);
}

TEST(TuneSearch, FailingSettingsLoseAndAreShown) {
  Table t;
  t.gain = {{"A=1", 10}, {"B=1", 5}};
  t.failing = {"A=1"};
  auto r = run_tune_search({env("A", "1"), env("B", "1")}, {1e9}, std::ref(t), std::chrono::minutes(5));
  EXPECT_EQ(combo_name(r.best), "B=1");
  bool shown = false;
  for (const auto& row : r.rows) shown |= row.name == "A=1" && !row.score;
  EXPECT_TRUE(shown);
}

// The search over 10 candidates on a fake clock where every measurement takes 10 s; `t` counts the runs.
TuneSearchResult search_on_fake_clock(Table& t, std::chrono::seconds budget, double reserved_runs) {
  auto now = std::chrono::steady_clock::time_point{};
  auto measure = [&](const TuneCombo& c) {
    now += std::chrono::seconds(10);
    return t(c);
  };
  std::vector<TuneSetting> cands;
  for (int i = 0; i < 10; ++i) cands.push_back(env("K" + std::to_string(i), "1"));
  return run_tune_search(
      cands, {1e9}, measure, budget, 0.005, [&] { return now; }, reserved_runs);
}

TEST(TuneSearch, StopsAtTheTimeBudget) {
  // The budget is 35 s, so the 4th run would not fit.
  Table t;
  EXPECT_TRUE(search_on_fake_clock(t, std::chrono::seconds(35), 0).budget_hit);
  EXPECT_EQ(t.runs, 3);
}

TEST(TuneSearch, LeavesRoomForTheRunsAfterIt) {
  // A 60 s budget and 2 runs reserved for the confirmation of a winner: a trial starts only when it and the 2
  // reserved runs fit (t + 30 s <= 60 s), so 4 runs, ending at 40 s; the confirmation ends by 60 s.
  Table t;
  t.gain["K0=1"] = 10;  // a winner from the first trial on: its confirmation will run
  EXPECT_TRUE(search_on_fake_clock(t, std::chrono::seconds(60), 2).budget_hit);
  EXPECT_EQ(t.runs, 4);
  // Nothing beats the default: no confirmation follows, so the search may use the whole budget (6 runs).
  Table none;
  EXPECT_TRUE(search_on_fake_clock(none, std::chrono::seconds(60), 2).best.empty());
  EXPECT_EQ(none.runs, 6);
}

TEST(TuneSearch, ScoreOverSizesIsBusBytesOverTotalTime) {
  auto measure = [&](const TuneCombo& c) -> std::optional<std::vector<double>> {
    if (c.empty()) return std::vector<double>{100, 400};
    return std::vector<double>{50, 1600};  // worse at the small size, better at the big one
  };
  // The big size carries 8 times the bytes, so its gain dominates the total time.
  auto r = run_tune_search({env("A", "1")}, {1e9, 8e9}, measure, std::chrono::minutes(1));
  EXPECT_NEAR(r.base, 9e9 / (1e9 / 100e9 + 8e9 / 400e9) / 1e9, 1e-9);
  EXPECT_EQ(combo_name(r.best), "A=1");
}

}  // namespace
}  // namespace dd::comm
