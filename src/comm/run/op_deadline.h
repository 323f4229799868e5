// Deadlines measured, not assumed: how long an op may take, from the measured time of a small warm-up
// all_reduce and the op's size. Used by the cross-node pass (its warm-up phase) and, inside each worker,
// by every op planned with measured_deadline (bench and the check pass, unless --op-timeout is given), so a
// slow link gets the time it needs and a stopped rank is named a few seconds after the expected end.
#pragma once
#include <chrono>
#include <cstdint>

#include "comm/engine/op_request.h"

namespace dd::comm {

// The deadline of an op expected to take `seconds` per run: three times its runs plus 2 s.
std::chrono::milliseconds derived_deadline(double seconds, int runs);

// Runs of an op: warm-up, timed, and the checked one.
int runs_of(const OpRequest& r);

// The warm-up a worker runs after communicator init when some op's deadline is measured: a small unchecked
// all_reduce (small enough for a 1 Mb/s link within `timeout`).
constexpr uint64_t kSpeedProbeBytes = 256 << 10;
OpRequest speed_probe_op(std::chrono::milliseconds timeout);

// `op`'s deadline when the speed probe's all_reduce took `probe_seconds` per run on `world` ranks: the
// bus speed it shows, scaled to the op's size and bus factor; at least 5 s.
std::chrono::milliseconds measured_deadline(const OpRequest& op, int world, double probe_seconds);

// The deadline of one run of `op` (OpRequest::run_timeout): three times its expected time plus 2 s, at least
// 5 s. A stalled rank is noticed this long after the last run that completed, not at the whole op's end.
std::chrono::milliseconds measured_run_deadline(const OpRequest& op, int world, double probe_seconds);

// The supervisor's last-resort bound for an op whose deadline the worker measures (the per-op watchdog
// normally fires long before): the op at 10 MB/s.
std::chrono::milliseconds backstop_deadline(const OpRequest& op);

}  // namespace dd::comm
