// Regular-file opener (regular_file.h): stat, open without blocking, fstat, capped read with a deadline that
// holds inside a read too (poll on a file that blocks).
#include "probe/regular_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
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
  RegularFile out = std::move(file);  // O_NONBLOCK kept: read_until() bounds a read that would block
  out.set_size(static_cast<uint64_t>(st.st_size));
  return out;
}

double regular_file_mtime(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  return double(st.st_mtim.tv_sec) + double(st.st_mtim.tv_nsec) / 1e9;
}

ssize_t read_until(int fd, char* buf, size_t n, std::chrono::steady_clock::time_point deadline,
                   std::chrono::milliseconds idle) {
  using namespace std::chrono;
  const auto idle_end = steady_clock::now() + idle;
  for (;;) {
    ssize_t r = ::read(fd, buf, n);
    if (r >= 0) return r;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
    const auto now = steady_clock::now();
    const auto end = std::min(deadline, idle_end);
    if (now >= end) {
      errno = ETIMEDOUT;
      return -1;
    }
    pollfd p{fd, POLLIN, 0};  // sleeps until data comes or the time is up; never longer
    int ms = static_cast<int>(std::min<int64_t>(duration_cast<milliseconds>(end - now).count() + 1, 60'000));
    if (::poll(&p, 1, ms) < 0 && errno != EINTR) return -1;
  }
}

std::string read_timeout_text(bool idle, std::chrono::milliseconds limit) {
  if (idle)
    return fmt::format(
        "no data for {:g} s and no end of file: a file that blocks (like /proc/kmsg), not a regular file",
        limit.count() / 1e3);
  return fmt::format("took longer than {:g} s, the limit", limit.count() / 1e3);
}

Result<FileText> read_regular_file(const std::string& path, const ReadLimits& limits) {
  auto file = open_regular_file(path);
  if (!file) return file.error();
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + limits.deadline;
  FileText out;
  out.file_size = file->size();
  char buf[65536];
  for (;;) {
    if (std::chrono::steady_clock::now() > deadline)
      return Error::timeout("reading " + path + ": " + read_timeout_text(false, limits.deadline), "", 0);
    const uint64_t room = limits.max_bytes - out.text.size();
    ssize_t n = read_until(file->fd(), buf, room == 0 ? 1 : std::min<uint64_t>(room, sizeof(buf)), deadline,
                           limits.idle);
    if (n < 0 && errno == ETIMEDOUT) {
      bool idle = std::chrono::steady_clock::now() < deadline;
      return Error::timeout(
          "reading " + path + ": " + read_timeout_text(idle, idle ? limits.idle : limits.deadline), "", 0);
    }
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
