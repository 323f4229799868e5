// A regular file mapped into memory for one pass of reading, as `logs` reads a large log (issue 38):
// read(2)'s copy out of the page cache was a tenth of its time. Pages behind the reader are let go
// (release_before), so what stays resident is bounded. A file that shrinks while mapped (logrotate's
// copytruncate) would raise SIGBUS on the pages past its new end: a handler installed once maps zero pages
// there instead, and shrank() tells the reader to stop. A fault outside every mapping of the thread goes to
// the handler that was there before (or kills as SIGBUS always did).
#pragma once
#include <cstdint>
#include <string_view>

#include "common/result.h"

namespace dd::probe {

class MappedFile {
 public:
  // Maps the first `size` bytes of the open regular file fd (size > 0), read-only, for sequential reading.
  static Result<MappedFile> map(int fd, uint64_t size);
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  ~MappedFile();

  // The mapped bytes. Reading them is what may fault: only between begin_reading and end_reading is a fault
  // turned into zero pages (one mapping per thread at a time).
  std::string_view bytes() const { return {base_, size_}; }
  void begin_reading();
  void end_reading();
  bool shrank()
      const;  // a fault past the file's end happened: the bytes from there are zeros, not the file's
  // Lets the kernel drop the mapped pages before offset (they were read): the resident set stays small.
  void release_before(uint64_t offset);

 private:
  MappedFile(char* base, uint64_t size) : base_(base), size_(size) {}
  char* base_ = nullptr;
  uint64_t size_ = 0;
  uint64_t released_ = 0;
};

}  // namespace dd::probe
