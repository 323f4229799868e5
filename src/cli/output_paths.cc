// output_path_problem (see output_paths.h): the path a write would replace (probe::Fs::write_target), then
// whether its folder takes a new file.
#include "cli/output_paths.h"

#include <cstring>

#include "probe/fs.h"

namespace dd::cli {

std::string output_path_problem(const std::string& flag, const std::string& path) {
  const probe::Fs& fs = probe::local_fs();
  auto target = fs.write_target(path, Symlinks::follow);
  if (!target) return flag + ": " + target.error().message();
  const size_t slash = target->rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : target->substr(0, slash);
  if (auto takes = fs.can_add_to(dir); !takes)
    return flag + ": cannot write " + path + ": its folder " + dir + " takes no new file (" +
           std::strerror(takes.error().err) + ")";
  return "";
}

}  // namespace dd::cli
