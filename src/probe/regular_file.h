// Regular-file opener: the one way distdoctor opens a file a user names (nccl.conf, --facts, log inputs).
// It never blocks on a FIFO, refuses devices, sockets and directories with a sentence that says what the
// path is, caps how much it reads (and says when it cut), and stops reading at a deadline.
#pragma once
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "common/file_type.h"  // file_type_phrase, for its messages
#include "common/result.h"

namespace dd::probe {

inline constexpr uint64_t kMaxConfigBytes = 64ull << 20;  // nccl.conf, facts files: far beyond any real one

// An open descriptor on a regular file (closed on destruction) and its size when opened.
class RegularFile {
 public:
  RegularFile(int fd, uint64_t size) : fd_(fd), size_(size) {}
  RegularFile(RegularFile&& o) noexcept : fd_(o.fd_), size_(o.size_) { o.fd_ = -1; }
  RegularFile& operator=(RegularFile&& o) noexcept;
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;
  ~RegularFile();
  int fd() const { return fd_; }
  uint64_t size() const { return size_; }  // 0 for /proc files, which do not know theirs
  void set_size(uint64_t size) { size_ = size; }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

// The size of path when it is a regular file (symlinks followed); else an invalid-kind Error
// "PATH is a FIFO, not a regular file", or the stat errno (not_found, io).
Result<uint64_t> stat_regular_file(const std::string& path);

// Epoch seconds of a regular file's last change (nanoseconds kept), -1 when there is none at path.
double regular_file_mtime(const std::string& path);

// Opens path read-only when it is a regular file: stat first (a device is never opened), then open with
// O_NONBLOCK|O_CLOEXEC|O_NOCTTY (a FIFO swapped in meanwhile does not block the open) and fstat the
// descriptor to refuse such a swap. O_NONBLOCK stays set: a file on disk ignores it, and a /proc file that
// says it is regular but blocks (/proc/kmsg: size 0, read waits for the next kernel message) answers EAGAIN,
// so read_until() can wait for it with a deadline instead of forever.
Result<RegularFile> open_regular_file(const std::string& path);

// One read(2) of at most n bytes that never blocks past `deadline` nor waits longer than `idle` for data
// that is not there: on EAGAIN it polls for the time left. Bytes read, 0 at the end of the file, or -1 with
// errno (ETIMEDOUT: no data in time; EINTR is retried).
ssize_t read_until(int fd, char* buf, size_t n, std::chrono::steady_clock::time_point deadline,
                   std::chrono::milliseconds idle);

// Why a read_until timed out: which of the two limits passed (idle or the whole deadline), and what it means.
std::string read_timeout_text(bool idle, std::chrono::milliseconds limit);

struct ReadLimits {
  uint64_t max_bytes = kMaxConfigBytes;
  std::chrono::milliseconds deadline{10'000};  // for the whole read, blocked reads included
  // The longest one read waits for data that is not there: only a file that blocks (/proc/kmsg) waits,
  // and such a file is not what the caller asked for.
  std::chrono::milliseconds idle{2'000};
};

struct FileText {
  std::string text;
  uint64_t file_size = 0;  // from fstat
  bool truncated = false;  // stopped at max_bytes with more there
};

// Reads at most limits.max_bytes of a regular file. Error when it cannot be opened, is not a regular file,
// a read fails, or the deadline or the idle limit passes (a timeout-kind Error), even inside a read.
Result<FileText> read_regular_file(const std::string& path, const ReadLimits& limits = {});

// The last max_bytes of a regular file (all of it when smaller; truncated when the start was left out): the
// end of a worker's log. Errors as read_regular_file's.
Result<FileText> read_regular_file_tail(const std::string& path, uint64_t max_bytes);

}  // namespace dd::probe
