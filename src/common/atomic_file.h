// Writing a whole file so that a reader sees the old content or the new, never half: a temporary file in the
// same directory, written, flushed to disk, then renamed over the target (what node_exporter's textfile
// collector asks of the files it reads). Only a regular file or nothing is replaced (common/write_target.h).
#pragma once
#include <sys/types.h>

#include <string>
#include <string_view>

#include "common/result.h"
#include "common/write_target.h"

namespace dd {

struct AtomicWriteOptions {
  mode_t mode = 0644;                    // the new file's mode, set with fchmod: the umask does not change it
  Symlinks symlinks = Symlinks::follow;  // a link to a regular file: write its target (the link stays)
  bool sync = true;  // fsync before the rename (a crash leaves old or new); off for scratch files
};

// Creates or replaces `path` with `content`. A device node, FIFO, socket or directory at the path is refused
// and left as it is. On failure the target is untouched and the temporary file removed; the error's message
// is "cannot write PATH: <why>" (write_target.h).
Status write_file_atomically(const std::string& path, std::string_view content,
                             const AtomicWriteOptions& o = {});

}  // namespace dd
