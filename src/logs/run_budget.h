// The limits one `distdoctor logs` run shares across all its inputs and threads, where a cap per file would
// multiply by the number of files (twenty files of 65,536 processes each took 2.76 GB): the processes it
// keeps, the PyTorch watchdog records it keeps, the Flight Recorder values that may be decoded at once (the
// dumps its threads turn into JSON at the same time), and those all its dumps may hold. analyze_logs makes
// one per run; a scan without one keeps only its per-file caps.
#pragma once
#include <cstdint>

#include "common/in_flight_gate.h"
#include "common/shared_count.h"

namespace dd::logs {

struct RunBudget {
  static constexpr uint64_t kMaxProcesses = 65536;             // processes kept, all files together
  static constexpr uint64_t kMaxFrValuesInFlight = 4'000'000;  // one largest dump's JSON (~900 MB) at once
  // Values of all the dumps together (their records cost about 40 bytes a value once built): 50 dumps of
  // 2000 entries with 64-frame stacks.
  static constexpr uint64_t kMaxFrValuesKept = 32'000'000;
  static constexpr uint64_t kMaxWatchdogRecords = 65536;  // PyTorch watchdog records, all files together

  SharedCount processes{kMaxProcesses};
  InFlightGate fr_values{kMaxFrValuesInFlight};
  SharedCount fr_values_kept{kMaxFrValuesKept};
  SharedCount watchdogs{kMaxWatchdogRecords};
};

}  // namespace dd::logs
