// Opening a file the tool writes into through a descriptor (a worker's log, a note appended to a worker's
// stack file): only a regular file or a new one, never through a symbolic link, never blocking on a FIFO
// (common/write_target.h says why). A file it creates gets its mode with fchmod, whatever the umask.
#pragma once
#include <sys/types.h>

#include <string>

#include "common/result.h"

namespace dd {

struct OutputFileOptions {
  bool truncate = false;  // start it empty (a log of this attempt), else append to what is there
  bool create = true;     // create it when absent (else a missing file is an Error, kind not_found)
  mode_t mode = 0644;     // for a file it creates; an existing file keeps its own
};

// A write-only, append-mode, close-on-exec descriptor on `path`, or an Error whose message is
// "cannot write PATH: <why>" (a symbolic link, a FIFO, a device: kind invalid; else the errno).
Result<int> open_output_file(const std::string& path, const OutputFileOptions& o = {});

}  // namespace dd
