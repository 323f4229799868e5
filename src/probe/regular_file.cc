// Regular-file opener (regular_file.h): stat, open without blocking, fstat, capped read with a deadline.
#include "probe/regular_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace dd::probe {

RegularFile& RegularFile::operator=(RegularFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    size_ = o.size_;
    o.fd_ = -1;
  }
  return *this;
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

Error not_regular_error(const std::string& path, mode_t mode) {
  return Error::make(ErrorKind::invalid, path + " is " + file_type_phrase(mode) + ", not a regular file");
}

}  // namespace

Result<uint64_t> stat_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Error::from_errno("cannot read " + path);
  if (!S_ISREG(st.st_mode)) return not_regular_error(path, st.st_mode);
  return static_cast<uint64_t>(st.st_size);
}

Result<RegularFile> open_regular_file(const std::string& path) {
  if (auto size = stat_regular_file(path); !size) return size.error();
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return Error::from_errno("cannot read " + path);
  RegularFile file(fd, 0);  // closes fd on every early return
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error::from_errno("cannot read " + path);
  if (!S_ISREG(st.st_mode)) return not_regular_error(path, st.st_mode);
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  RegularFile out = std::move(file);
  out.set_size(static_cast<uint64_t>(st.st_size));
  return out;
}

Result<FileText> read_regular_file(const std::string& path, const ReadLimits& limits) {
  auto file = open_regular_file(path);
  if (!file) return file.error();
  const auto start = std::chrono::steady_clock::now();
  FileText out;
  out.file_size = file->size();
  char buf[65536];
  for (;;) {
    if (std::chrono::steady_clock::now() - start > limits.deadline)
      return Error::timeout(
          fmt::format("reading {} took longer than {:g} s", path, limits.deadline.count() / 1e3));
    const uint64_t room = limits.max_bytes - out.text.size();
    ssize_t n = ::read(file->fd(), buf, room == 0 ? 1 : std::min<uint64_t>(room, sizeof(buf)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno("read " + path);  // EINVAL (sysfs "speed" of a down link), EIO...
    if (n == 0) break;
    if (room == 0) {  // one byte past the cap: there is more
      out.truncated = true;
      break;
    }
    out.text.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Result<FileText> read_regular_file_tail(const std::string& path, uint64_t max_bytes) {
  auto file = open_regular_file(path);
  if (!file) return file.error();
  FileText out;
  out.file_size = file->size();
  const uint64_t from = out.file_size > max_bytes ? out.file_size - max_bytes : 0;
  out.truncated = from > 0;
  out.text.resize(size_t(out.file_size - from));
  size_t have = 0;
  while (have < out.text.size()) {
    ssize_t n = ::pread(file->fd(), out.text.data() + have, out.text.size() - have, off_t(from + have));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::from_errno("read " + path);
    if (n == 0) break;  // the file shrank meanwhile
    have += size_t(n);
  }
  out.text.resize(have);
  return out;
}

}  // namespace dd::probe
