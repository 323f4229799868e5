// write_file_atomically (see atomic_file.h): check the target, O_EXCL|O_NOFOLLOW temporary beside it, fchmod,
// write, fsync, rename.
#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace dd {

namespace {

// 0 or the errno of the failed write or fsync.
int write_and_sync(int fd, std::string_view content, bool sync) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    content.remove_prefix(size_t(n));
  }
  return !sync || ::fsync(fd) == 0 ? 0 : errno;
}

// A temporary name beside target that no other thread or process of ours uses.
std::string temporary_beside(const std::string& target) {
  static std::atomic<unsigned> serial{0};
  return target + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view content, const AtomicWriteOptions& o) {
  auto target = write_target(path, o.symlinks);
  if (!target) return target.error();
  const std::string tmp = temporary_beside(*target);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return write_error(path, errno);
  int err = ::fchmod(fd, o.mode) == 0 ? 0 : errno;
  if (err == 0) err = write_and_sync(fd, content, o.sync);
  if (::close(fd) != 0 && err == 0) err = errno;
  // Checked again just before the rename: a FIFO or device put there meanwhile stays (the message names
  // the link's target when a link was followed).
  if (err == 0) {
    if (auto still = write_target(*target, Symlinks::refuse); !still) {
      ::unlink(tmp.c_str());
      return still.error();
    }
  }
  if (err == 0 && ::rename(tmp.c_str(), target->c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return write_error(path, err);
  }
  return Ok{};
}

}  // namespace dd
