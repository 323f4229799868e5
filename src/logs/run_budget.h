// The limits one `distdoctor logs` run shares across all its inputs and threads, where a cap per file would
// multiply by the number of files (twenty files of 65,536 processes each took 2.76 GB): the processes it
// keeps, and the Flight Recorder values that may be decoded at once (the dumps its threads turn into JSON at
// the same time). analyze_logs makes one per run; a scan without one keeps only its per-file caps.
#pragma once
#include <cstdint>

#include "common/in_flight_gate.h"
#include "common/shared_count.h"

namespace dd::logs {

struct RunBudget {
  static constexpr uint64_t kMaxProcesses = 65536;             // processes kept, all files together
  static constexpr uint64_t kMaxFrValuesInFlight = 4'000'000;  // one largest dump's JSON (~400 MB) at once

  SharedCount processes{kMaxProcesses};
  InFlightGate fr_values{kMaxFrValuesInFlight};
};

}  // namespace dd::logs
