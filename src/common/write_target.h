// What the tool may write over when it writes a file at a path someone chose (--metrics, --plot, a log, the
// job's start-up hook): nothing yet, or a regular file. A device node, a FIFO, a socket or a directory is
// never replaced (an atomic rename would put a text file in its place: root's `--metrics /dev/full` did) and
// never opened for writing (a FIFO would block, a device would take the bytes).
#pragma once
#include <string>

#include "common/result.h"

namespace dd {

// What a symbolic link at the path means. follow: its final target is written when that is a regular file,
// and the link stays (node_exporter's textfile folder often links to a file kept elsewhere). refuse: a link
// is refused (files in the tool's own folders, where nobody else puts a link).
enum class Symlinks { follow, refuse };

// The path to write for `path`: itself when nothing is there or a regular file is, the link's final target
// (an absolute path) when a link is followed to a regular file. Else an Error whose message is
// "cannot write PATH: it is a character device, not a regular file" (kind invalid; a dangling link and a
// loop too), or "cannot write PATH: " and the errno of lstat.
Result<std::string> write_target(const std::string& path, Symlinks symlinks);

// The Error for a write to `path` that failed with errno e: "cannot write PATH: <strerror>".
Error write_error(const std::string& path, int e);

}  // namespace dd
