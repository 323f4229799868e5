// Deadlines from measured speed (see op_deadline.h).
#include "comm/run/op_deadline.h"

#include <algorithm>

namespace dd::comm {

std::chrono::milliseconds derived_deadline(double seconds, int runs) {
  return std::chrono::milliseconds(int64_t(seconds * std::max(runs, 1) * 3000) + 2000);
}

int runs_of(const OpRequest& r) { return r.warmup + r.iters + (r.check ? 1 : 0); }

OpRequest speed_probe_op(std::chrono::milliseconds timeout) {
  OpRequest r;
  r.coll = Coll::all_reduce;
  r.bytes = kSpeedProbeBytes;
  r.warmup = 1;
  r.iters = 2;
  r.check = false;
  r.timeout = timeout;
  return r;
}

namespace {

// Expected seconds of one run of `op` at the bus speed the speed probe showed.
double expected_run_seconds(const OpRequest& op, int world, double probe_seconds) {
  const double probe_bus = kSpeedProbeBytes * coll_info(Coll::all_reduce).busbw_factor(world);
  const double bus_per_s = probe_bus / std::max(probe_seconds, 1e-6);
  // Collectives whose bus factor is below 1 (broadcast, one-rank cases) still move the whole buffer once.
  return double(op.bytes) * std::max(1.0, coll_info(op.coll).busbw_factor(world)) / bus_per_s;
}

}  // namespace

std::chrono::milliseconds measured_run_deadline(const OpRequest& op, int world, double probe_seconds) {
  // --check all: a run comes with its data preparation and check: counted twice.
  const int runs = op.check_every ? 2 : 1;
  return std::max(derived_deadline(expected_run_seconds(op, world, probe_seconds), runs),
                  std::chrono::milliseconds(5000));
}

std::chrono::milliseconds measured_deadline(const OpRequest& op, int world, double probe_seconds) {
  const double per_run = expected_run_seconds(op, world, probe_seconds);
  // --check all checks every timed run on its own, each with its data preparation: count those twice.
  const int runs = runs_of(op) + (op.check_every ? op.iters : 0);
  // At least 5 s: a loaded machine (CI, sanitizers) stalls a process for a second now and then.
  return std::max(derived_deadline(per_run, runs), std::chrono::milliseconds(5000));
}

std::chrono::milliseconds backstop_deadline(const OpRequest& op) {
  const int runs = runs_of(op) + (op.check_every ? op.iters : 0);
  return std::max(op.timeout,
                  std::chrono::milliseconds(10000 + int64_t(double(op.bytes) * 2 * runs / 1e7 * 1000)));
}

}  // namespace dd::comm
