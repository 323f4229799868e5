// make_own_dir (see own_dir.h): mkdir 0700, open it O_DIRECTORY|O_NOFOLLOW, check the owner, fchmod.
#include "common/own_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace dd {

Status make_own_dir(const std::string& path, mode_t mode) {
  const std::string what = "cannot create the folder " + path;
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return Error::from_errno(what);
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP || errno == ENOTDIR)
      return Error::make(ErrorKind::invalid, what + ": a symbolic link or another file is in its place");
    return Error::from_errno(what);
  }
  struct stat st {};
  int err = ::fstat(fd, &st) == 0 ? 0 : errno;
  if (err == 0 && st.st_uid != ::geteuid()) {
    ::close(fd);
    return Error::make(ErrorKind::invalid,
                       what + ": it is there already and belongs to user id " + std::to_string(st.st_uid));
  }
  if (err == 0 && (st.st_mode & 07777) != mode && ::fchmod(fd, mode) != 0) err = errno;
  ::close(fd);
  if (err != 0) return Error::sys(err, what);
  return Ok{};
}

}  // namespace dd
