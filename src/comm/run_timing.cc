// make_run_timing: the phases of a run from the supervisor's time points and the workers' events; the
// text and JSON forms of --timing.
#include "comm/run_timing.h"

#include <cstdio>
#include <map>

#include "comm/run_setup.h"
#include "comm/run_watch.h"

namespace dd::comm {

using rendezvous::Clock;

namespace {

double secs(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// The slowest rank's time from event `from` (or the supervisor's `start`) to event `to`; -1 when no rank
// has both.
struct Slowest {
  double seconds = -1;
  int rank = -1;
};

Slowest slowest(const RunWatch& w, const RunLayout& l, const char* from, const char* to,
                Clock::time_point start = {}) {
  Slowest out;
  for (int r : l.local) {
    const auto& seen = w.ranks()[r].seen;
    auto b = seen.find(to);
    auto a = from ? seen.find(from) : seen.end();
    if (b == seen.end() || (from && a == seen.end())) continue;
    double s = secs(from ? a->second : start, b->second);
    if (s > out.seconds) out = {s, r};
  }
  return out;
}

std::string by_rank(int r) { return "workers (slowest: rank " + std::to_string(r) + ")"; }

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

RunTiming make_run_timing(const SupervisorTimes& t, const RunWatch& w, const RunLayout& l) {
  RunTiming out;
  out.total_s = secs(t.begin, t.end);
  out.phases.push_back(
      {"set-up (plan, temp dir) and worker fork/exec", secs(t.begin, t.started), "supervisor"});
  add(out, "worker process start (exec, libraries, plan, store)", slowest(w, l, nullptr, "ready", t.started));
  add(out, "engine init (library, CUDA, communicator)", slowest(w, l, "ready", "init_done"));
  add_worker_steps(out, w, l);
  Slowest runs = slowest(w, l, "init_done", "done");
  add(out, "the collectives (with data checks)", runs);
  Slowest alloc = allocation(w, l);
  if (runs.seconds >= 0 && alloc.seconds > 0) add(out, "of which buffer allocation", alloc, 1);
  add(out, "exit barrier (ranks leave together)", slowest(w, l, "done", "left"));
  add(out, "process exit (CUDA/NCCL teardown by the OS)", slowest(w, l, "left", "exit"));
  Clock::time_point last_exit = t.watched;
  bool any_exit = false;
  for (int r : l.local) {
    auto e = w.ranks()[r].seen.find("exit");
    if (e != w.ranks()[r].seen.end() && (!any_exit || e->second > last_exit)) {
      last_exit = e->second;
      any_exit = true;
    }
  }
  out.phases.push_back({"supervisor wrap-up (stop, NCCL logs, temp dir)",
                        secs(any_exit ? last_exit : t.watched, t.end), "supervisor"});
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
