// The real filesystem's writes (file_writes.h): append after an lstat, with O_NOFOLLOW|O_NONBLOCK and an
// fstat check, mkdir (as a claim too) or make_own_dir, unlink/rmdir, mkdtemp/mkstemp under $TMPDIR, mkfifo, a
// non-blocking FIFO write, flock.
#include "probe/file_writes.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/own_dir.h"
#include "common/write_target.h"

namespace dd::probe {

namespace {

FileKind kind_of(mode_t m) {
  if (S_ISREG(m)) return FileKind::regular;
  if (S_ISDIR(m)) return FileKind::directory;
  if (S_ISLNK(m)) return FileKind::symlink;
  if (S_ISFIFO(m)) return FileKind::fifo;
  return FileKind::other;
}

// Writes all of text to fd: 0 or the errno.
int write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    text.remove_prefix(size_t(n));
  }
  return 0;
}

}  // namespace

FileInfo stat_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {.kind = kind_of(st.st_mode),
          .size = static_cast<uint64_t>(st.st_size),
          .mtime = double(st.st_mtim.tv_sec) + double(st.st_mtim.tv_nsec) / 1e9,
          .mode = static_cast<mode_t>(st.st_mode & 07777)};
}

Status append_to_file(const std::string& path, std::string_view text, const AppendOptions& o) {
  struct stat seen {};  // looked at first: a device is never opened, a link never followed
  if (::lstat(path.c_str(), &seen) == 0 && !S_ISREG(seen.st_mode))
    return Error::make(ErrorKind::invalid, "cannot write " + path + ": not a regular file");
  const int flags = (o.own_line ? O_RDWR : O_WRONLY) | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
                    O_NOCTTY | (o.create ? O_CREAT : 0);
  const int fd = ::open(path.c_str(), flags, o.mode);
  if (fd < 0) return write_error(path, errno);
  struct stat st {};  // and again on the descriptor: something swapped in meanwhile
  int err = ::fstat(fd, &st) == 0 ? 0 : errno;
  if (err == 0 && !S_ISREG(st.st_mode)) err = EINVAL;
  std::string joined;  // the newline and the text in one write: no other writer's line between them
  if (err == 0 && o.own_line && st.st_size > 0) {
    char last = '\n';
    if (::pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n') joined = "\n";
  }
  if (err == 0) err = joined.empty() ? write_all(fd, text) : write_all(fd, joined.append(text));
  ::close(fd);
  if (err == EINVAL) return Error::make(ErrorKind::invalid, "cannot write " + path + ": not a regular file");
  if (err != 0) return write_error(path, err);
  return Ok{};
}

Status make_folder(const std::string& path, mode_t mode, bool own) {
  if (own) return make_own_dir(path, mode);
  if (::mkdir(path.c_str(), mode) == 0) return Ok{};
  const int e = errno;
  if (e == EEXIST && stat_path(path).kind == FileKind::directory) return Ok{};
  return Error::sys(e, "cannot create the folder " + path);
}

Status make_new_folder(const std::string& path, mode_t mode, const std::string& named) {
  if (::mkdir(path.c_str(), mode) == 0) return Ok{};
  return Error::from_errno("cannot create the folder " + named);
}

Status remove_path(const std::string& path) {
  if (::unlink(path.c_str()) == 0 || errno == ENOENT) return Ok{};
  if ((errno == EISDIR || errno == EPERM) && ::rmdir(path.c_str()) == 0) return Ok{};
  return Error::from_errno("cannot remove " + path);
}

Status remove_path_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) return Error::sys(ec.value(), "cannot remove " + path);
  return Ok{};
}

std::string temp_root() {
  std::error_code ec;
  std::string root = std::filesystem::temp_directory_path(ec).string();  // $TMPDIR, else /tmp
  while (root.size() > 1 && root.back() == '/') root.pop_back();         // TMPDIR=/tmp/: no "//" in paths
  return ec ? std::string("/tmp") : root;
}

Result<std::string> make_temp_folder(const std::string& in, const std::string& prefix) {
  std::string tmpl = in + "/" + prefix + "XXXXXX";
  if (!::mkdtemp(tmpl.data())) return Error::from_errno("cannot create a temporary directory " + tmpl);
  return tmpl;
}

Result<std::string> write_temp(const std::string& in, const std::string& prefix, std::string_view content) {
  std::string path = in + "/" + prefix + "XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) return write_error(path, errno);
  int err = write_all(fd, content);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0) return path;
  ::unlink(path.c_str());
  return write_error(path, err);
}

Status make_fifo_at(const std::string& path, mode_t mode) {
  ::unlink(path.c_str());
  if (::mkfifo(path.c_str(), mode) != 0) return Error::from_errno(path);
  return Ok{};
}

Status write_to_fifo(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // ENXIO: nobody reads it
  if (fd < 0) return Error::make(ErrorKind::not_found, "nobody reads " + path, "", errno);
  const int err = write_all(fd, bytes);
  ::close(fd);
  if (err != 0) return write_error(path, err);
  return Ok{};
}

Result<FileLock> lock_path(const std::string& path) {
  const int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd < 0) return Error::from_errno("open " + path);
  ::flock(fd, LOCK_EX);
  return FileLock([fd] {
    ::flock(fd, LOCK_UN);
    ::close(fd);
  });
}

}  // namespace dd::probe
