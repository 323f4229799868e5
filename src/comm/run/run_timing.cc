// make_run_timing: the phases of a run from the supervisor's time points and the workers' events; the
// text and JSON forms of --timing.
#include "comm/run/run_timing.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "comm/run/run_setup.h"
#include "comm/run/run_watch.h"

namespace dd::comm {

using rendezvous::Clock;

namespace {

double secs(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

struct Slowest {
  double seconds = -1;
  int rank = -1;
};

// When the last local rank sent event `ev` (the phase before it ends for the run only then); nullopt when
// some rank never sent it.
struct Reached {
  Clock::time_point at;
  int rank = -1;
};
std::optional<Reached> last_to_reach(const RunWatch& w, const RunLayout& l, const char* ev) {
  std::optional<Reached> out;
  for (int r : l.local) {
    const auto& seen = w.ranks()[r].seen;
    auto it = seen.find(ev);
    if (it == seen.end()) return std::nullopt;
    if (!out || it->second > out->at) out = Reached{it->second, r};
  }
  return out;
}

std::string by_rank(int r) { return "workers (slowest: rank " + std::to_string(r) + ")"; }
std::string last_rank(int r) { return "workers (last: rank " + std::to_string(r) + ")"; }

void add(RunTiming& t, const std::string& name, const Slowest& s, int depth = 0) {
  if (s.seconds >= 0) t.phases.push_back({name, s.seconds, by_rank(s.rank), depth});
}

// Per rank: each engine init step, and buffer allocation summed over the runs; the slowest rank's of each.
void add_worker_steps(RunTiming& t, const RunWatch& w, const RunLayout& l) {
  std::vector<std::string> order;
  std::map<std::string, Slowest> steps;
  for (int r : l.local)
    for (const auto& [name, s] : w.ranks()[r].init_phases) {
      if (!steps.count(name)) order.push_back(name);
      if (s > steps[name].seconds) steps[name] = {s, r};
    }
  for (const auto& name : order) add(t, name, steps[name], 1);
}

// The ops that took longest in the workers (slowest rank of each), at most `n`, longest first.
void add_slowest_ops(RunTiming& t, const RunWatch& w, size_t n) {
  std::vector<std::pair<Slowest, int>> ops;
  for (const auto& [op, ranks] : w.results()) {
    Slowest s;
    for (const auto& [r, rr] : ranks)
      if (rr.wall_us * 1e-6 > s.seconds) s = {rr.wall_us * 1e-6, r};
    if (s.seconds > 0) ops.push_back({s, op});
  }
  std::sort(ops.begin(), ops.end(),
            [](const auto& a, const auto& b) { return a.first.seconds > b.first.seconds; });
  for (size_t i = 0; i < ops.size() && i < n; ++i)
    add(t, "op " + std::to_string(ops[i].second) + ": " + w.op_label(ops[i].second), ops[i].first, 1);
}

Slowest allocation(const RunWatch& w, const RunLayout& l) {
  Slowest out;
  std::map<int, double> per_rank;
  for (const auto& [op, ranks] : w.results())
    for (const auto& [r, rr] : ranks) per_rank[r] += rr.alloc_us * 1e-6;
  for (const auto& [r, s] : per_rank)
    if (s > out.seconds) out = {s, r};
  (void)l;
  return out;
}

}  // namespace

// Top-level phases run from the moment the last rank finished the previous one to the moment the last rank
// finished this one, so they add up to the run's wall time; steps inside a phase are the slowest rank's.
RunTiming make_run_timing(const SupervisorTimes& t, const RunWatch& w, const RunLayout& l) {
  RunTiming out;
  out.total_s = secs(t.begin, t.end);
  out.phases.push_back(
      {"set-up (plan, temp dir) and worker fork/exec", secs(t.begin, t.started), "supervisor"});
  struct Step {
    const char* event;
    const char* name;
  };
  const Step chain[] = {{"ready", "worker process start (exec, libraries, plan, store)"},
                        {"init_done", "engine init (library, CUDA, communicator)"},
                        {"done", "the collectives (with data checks)"},
                        {"left", "exit barrier (ranks leave together)"},
                        {"exit", "process exit (CUDA/NCCL teardown by the OS)"}};
  Clock::time_point prev = t.started;
  for (const Step& step : chain) {
    auto reached = last_to_reach(w, l, step.event);
    if (!reached && std::string(step.event) == "exit" && w.all_left())  // runner.cc: not waited for
      out.phases.push_back({"process exit (after the report: not waited for)", 0, "workers"});
    if (!reached) break;
    out.phases.push_back({step.name, secs(prev, reached->at), last_rank(reached->rank)});
    prev = reached->at;
    if (std::string(step.event) == "init_done") add_worker_steps(out, w, l);
    if (std::string(step.event) == "done") {
      Slowest alloc = allocation(w, l);
      if (alloc.seconds > 0) add(out, "of which buffer allocation", alloc, 1);
      add_slowest_ops(out, w, 3);
    }
  }
  out.phases.push_back(
      {"supervisor wrap-up (stop, NCCL logs, findings)", secs(std::min(prev, t.end), t.end), "supervisor"});
  return out;
}

nlohmann::json timing_json(const RunTiming& t) {
  nlohmann::json phases = nlohmann::json::array();
  for (const auto& p : t.phases)
    phases.push_back({{"phase", p.name}, {"seconds", p.seconds}, {"by", p.by}, {"step", p.depth > 0}});
  return {{"total_s", t.total_s}, {"phases", phases}};
}

void print_timing(const RunTiming& t, std::ostream& out) {
  char line[256];
  out << "# timing (--timing): where the run's " << std::to_string(t.total_s).substr(0, 5) << " s went\n";
  for (const auto& p : t.phases) {
    snprintf(line, sizeof line, "#   %s%-56s %8.3f s  %s\n", p.depth > 0 ? "  " : "", p.name.c_str(),
             p.seconds, p.by.c_str());
    out << line;
  }
}

}  // namespace dd::comm
