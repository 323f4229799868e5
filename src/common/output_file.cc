// open_output_file (see output_file.h): O_CREAT|O_EXCL first (then fchmod), else lstat what is there and open
// it with O_NOFOLLOW|O_NONBLOCK, fstat the descriptor (a swap meanwhile), and only then truncate and clear
// O_NONBLOCK.
#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "common/file_type.h"
#include "common/write_target.h"

namespace dd {

namespace {

constexpr int kOutputFlags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;

Error refused_output(const std::string& path, const std::string& why) {
  return Error::make(ErrorKind::invalid, "cannot write " + path + ": it is " + why +
                                             " (only a regular file or a new one is written)");
}

// The refusal for what lstat finds at path after an open failed with ELOOP or ENXIO; else the errno's.
Error open_failure(const std::string& path, int e) {
  struct stat st {};
  if ((e == ELOOP || e == ENXIO) && ::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return refused_output(path, file_type_phrase(st.st_mode));
  return write_error(path, e);
}

}  // namespace

Result<int> open_output_file(const std::string& path, const OutputFileOptions& o) {
  int fd = o.create ? ::open(path.c_str(), kOutputFlags | O_CREAT | O_EXCL, 0600) : -1;
  const bool created = fd >= 0;
  if (created && ::fchmod(fd, o.mode) != 0) {
    const int e = errno;
    ::close(fd);
    return write_error(path, e);
  }
  if (!created && o.create && errno != EEXIST) return open_failure(path, errno);
  if (!created) {  // what is there: looked at first, so a device is never opened
    struct stat seen {};
    if (::lstat(path.c_str(), &seen) == 0 && !S_ISREG(seen.st_mode))
      return refused_output(path, file_type_phrase(seen.st_mode));
    fd = ::open(path.c_str(), kOutputFlags);
  }
  if (fd < 0) return open_failure(path, errno);
  struct stat st {};
  int err = ::fstat(fd, &st) == 0 ? 0 : errno;
  if (err == 0 && !S_ISREG(st.st_mode)) {  // a device opened without blocking: refused before any byte
    ::close(fd);
    return refused_output(path, file_type_phrase(st.st_mode));
  }
  if (err == 0 && o.truncate && !created && ::ftruncate(fd, 0) != 0) err = errno;
  if (err == 0 && ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) err = errno;
  if (err != 0) {
    ::close(fd);
    return write_error(path, err);
  }
  return fd;
}

}  // namespace dd
