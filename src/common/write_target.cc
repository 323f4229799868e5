// write_target (see write_target.h): lstat the path; a link is resolved with realpath and its target stat'ed.
#include "common/write_target.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/file_type.h"

namespace dd {

namespace {

Error refused_target(const std::string& path, const std::string& why) {
  return Error::make(ErrorKind::invalid,
                     "cannot write " + path + ": " + why + " (only a regular file or a new one is written)");
}

}  // namespace

Error write_error(const std::string& path, int e) { return Error::sys(e, "cannot write " + path); }

Result<std::string> write_target(const std::string& path, Symlinks symlinks) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return path;  // a new file; a missing folder fails when it is created
    return write_error(path, errno);
  }
  if (S_ISREG(st.st_mode)) return path;
  if (!S_ISLNK(st.st_mode)) return refused_target(path, "it is " + file_type_phrase(st.st_mode));
  if (symlinks == Symlinks::refuse) return refused_target(path, "it is a symbolic link, not followed here");
  char* real = ::realpath(path.c_str(), nullptr);
  if (real == nullptr) {
    const int e = errno;
    return refused_target(
        path, e == ENOENT ? "it is a symbolic link to a missing file"
                          : std::string("its symbolic link cannot be resolved (") + std::strerror(e) + ")");
  }
  std::string target(real);
  std::free(real);
  if (::stat(target.c_str(), &st) != 0) return write_error(path, errno);
  if (!S_ISREG(st.st_mode))
    return refused_target(path, "it is a symbolic link to " + target + ", " + file_type_phrase(st.st_mode));
  return target;
}

}  // namespace dd
