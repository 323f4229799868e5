// The files a command writes at paths its flags name (check's and bench's --metrics, bench's --plot): looked
// at before the run, so a device node, a FIFO, a directory or a folder that takes no new file is refused
// (exit 3) before minutes of measuring; the file itself is written after the run, whole
// (common/atomic_file.h), and a failure then is exit 3 too.
#pragma once
#include <string>

namespace dd::cli {

// "" when `path` can be written, else "FLAG: cannot write PATH: <why>" (what is there, or its folder's
// errno).
std::string output_path_problem(const std::string& flag, const std::string& path);

}  // namespace dd::cli
