// output_path_problem (see output_paths.h): write_target, then access(2) on the folder that gets the file.
#include "cli/output_paths.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/write_target.h"

namespace dd::cli {

std::string output_path_problem(const std::string& flag, const std::string& path) {
  auto target = write_target(path, Symlinks::follow);
  if (!target) return flag + ": " + target.error().message();
  const size_t slash = target->rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : target->substr(0, slash);
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return flag + ": cannot write " + path + ": its folder " + dir + " takes no new file (" +
           std::strerror(errno) + ")";
  return "";
}

}  // namespace dd::cli
