// Where the time of one collective run goes (--timing): the supervisor's own steps, and each phase of the
// workers, from the arrival times of their events (ready, init_done, done, left, exit) and what they
// measured inside (the steps of engine init, buffer allocation). For a phase run by every rank in
// parallel, the slowest rank's time is given.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "rendezvous/store.h"

namespace dd::comm {

struct TimedPhase {
  std::string name;
  double seconds = 0;
  std::string by;  // "supervisor" or "workers (slowest rank N)"
  int depth = 0;   // 1: a step inside the phase above it
};

struct RunTiming {
  std::vector<TimedPhase> phases;
  double total_s = 0;  // the whole run_collectives call
};

// Supervisor time points of one run: begin, workers started, watching ended, run returned.
struct SupervisorTimes {
  rendezvous::Clock::time_point begin, started, watched, end;
};

class RunWatch;
struct RunLayout;
RunTiming make_run_timing(const SupervisorTimes& t, const RunWatch& watch, const RunLayout& layout);

nlohmann::json timing_json(const RunTiming& t);
// "# phase ... seconds" lines, steps indented under their phase.
void print_timing(const RunTiming& t, std::ostream& out);

}  // namespace dd::comm
