// write_file_atomically (see atomic_file.h): O_EXCL temporary beside the target, write, fsync, rename.
#include "common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace dd {

namespace {

Status write_all(int fd, std::string_view content, const std::string& tmp) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error::from_errno("write " + tmp);
    content.remove_prefix(size_t(n));
  }
  if (::fsync(fd) != 0) return Error::from_errno("fsync " + tmp);
  return Ok{};
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return Error::from_errno("create " + tmp);
  Status written = write_all(fd, content, tmp);
  if (::close(fd) != 0 && written) written = Error::from_errno("close " + tmp);
  if (written && ::rename(tmp.c_str(), path.c_str()) != 0) written = Error::from_errno("rename to " + path);
  if (!written) ::unlink(tmp.c_str());
  return written;
}

}  // namespace dd
