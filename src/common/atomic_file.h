// Writing a whole file so that a reader sees the old content or the new, never half: a temporary file in the
// same directory, written, flushed to disk, then renamed over the target (what node_exporter's textfile
// collector asks of the files it reads).
#pragma once
#include <string>
#include <string_view>

#include "common/result.h"

namespace dd {

// Creates or replaces `path` with `content` (mode 0644). On failure the target is untouched and the temporary
// file removed; the error names the path and the system's reason.
Status write_file_atomically(const std::string& path, std::string_view content);

}  // namespace dd
