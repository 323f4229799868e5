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

// Opens path read-only when it is a regular file: stat first (a device is never opened), then open with
// O_NONBLOCK|O_CLOEXEC|O_NOCTTY (a FIFO swapped in meanwhile does not block the open), fstat the descriptor
// to refuse such a swap, and clear O_NONBLOCK.
Result<RegularFile> open_regular_file(const std::string& path);

struct ReadLimits {
  uint64_t max_bytes = kMaxConfigBytes;
  std::chrono::milliseconds deadline{10'000};  // for the whole read; checked between chunks
};

struct FileText {
  std::string text;
  uint64_t file_size = 0;  // from fstat
  bool truncated = false;  // stopped at max_bytes with more there
};

// Reads at most limits.max_bytes of a regular file. Error when it cannot be opened, is not a regular file,
// a read fails, or the deadline passes (a timeout-kind Error).
Result<FileText> read_regular_file(const std::string& path, const ReadLimits& limits = {});

// The last max_bytes of a regular file (all of it when smaller; truncated when the start was left out): the
// end of a worker's log. Errors as read_regular_file's.
Result<FileText> read_regular_file_tail(const std::string& path, uint64_t max_bytes);

}  // namespace dd::probe
