// The attempt's record saved beside its logs (RUN_DIR/ATTEMPT/attempt.json): everything launch's report was
// built from (each rank's end, its last lines, /proc state, stacks, identity, the Flight Recorder digests),
// so that `distdoctor logs RUN_DIR` gives the same findings, in the same order, as launch gave when it ended.
#pragma once
#include <string>

#include "common/result.h"
#include "launch/launch_facts.h"
#include "probe/fs.h"

namespace dd::launch {

inline constexpr const char* kAttemptFileName = "attempt.json";

// Writes the record into run_dir/ATTEMPT/attempt.json: a new file renamed over the old one, so a reader (or
// another node on a shared filesystem writing the same record) never sees half of it. "" or why not.
std::string save_attempt_record(const std::string& run_dir, const AttemptRecord& a,
                                probe::Fs& fs = probe::local_fs());

// A saved record from its text; an Error when the text is not one (another program's attempt.json).
Result<AttemptRecord> parse_attempt_record(const std::string& text);

}  // namespace dd::launch
