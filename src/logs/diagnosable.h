// Whether what `logs` read holds anything it can reason over: NCCL lines, a framework's or launcher's lines
// (a rank prefix, a Python traceback, torchrun's exits, a watchdog), a catalogue match or a Flight Recorder
// dump. A file of none of these (a hostname, a config file) is "nothing to diagnose", not a pass.
#pragma once
#include "logs/analyze.h"

namespace dd::logs {

bool holds_diagnosable(const LogsResult& r);

}  // namespace dd::logs
