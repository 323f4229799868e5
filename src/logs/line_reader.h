// Streaming line reader for log inputs: regular files (opened by probe::open_regular_file: a FIFO or device
// is refused), gzip (by magic bytes, streamed through zlib, its expansion capped) and stdin ("-"). Memory
// stays bounded: lines longer than max_line are cut (the rest is skipped and counted), never buffered whole.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace dd::logs {

struct ReadStats {
  uint64_t bytes = 0;  // bytes of text seen (after gunzip)
  uint64_t lines = 0;
  uint64_t truncated_lines = 0;  // lines longer than max_line (cut to max_line)
  uint64_t longest_line = 0;     // length of the longest line, before cutting
  uint64_t nul_bytes = 0;        // NUL bytes seen: a sign of binary data
  bool gzip = false;
  bool gzip_capped = false;  // decompression stopped at the expansion cap (ReadOptions::gzip_*)
  std::string error;         // open/read/gunzip error ("" = read to the end)
  std::string last_line;     // last non-empty line (capped at 400 bytes)
};

struct ReadOptions {
  size_t max_line = 64 * 1024;  // longer lines are cut to this
  size_t chunk = 1 << 20;       // read size
  // A file at least this large is read through a mapping (probe/mapped_file), map_window bytes at a time:
  // no copy out of the page cache.
  uint64_t map_at_least = 1 << 20;
  size_t map_window = 4 << 20;
  // A gzip input stops (with an error saying so) once its text passes gzip_floor_bytes AND is more than
  // gzip_max_ratio times the compressed bytes read: real logs expand about 10x, a compression bomb 1000x.
  uint64_t gzip_floor_bytes = 64ull << 20;
  uint64_t gzip_max_ratio = 100;
  // An input that is mostly control bytes once this much was read is binary (/dev/zero, a core file):
  // reading stops there with an error saying so. 0: never.
  uint64_t binary_after = 64ull << 20;
  // A file (not stdin) whose read waits this long without data blocks (/proc/kmsg, a trace pipe: "regular"
  // files of size 0): it ends there with an error saying so. A file on disk never waits.
  std::chrono::milliseconds idle{2'000};
  // An input (stdin too) is read for at most this long (one that never ends, a pipe whose writer never
  // closes it, or a very slow disk); the rest is not read and the error says so.
  std::chrono::milliseconds deadline{600'000};
};

// Calls on_line(line, line_number) for each line (no '\n'; a trailing '\r' is dropped). Line numbers start
// at 1. Returns the stats; errors are in stats.error, never thrown.
using LineFn = std::function<void(std::string_view line, uint64_t lineno)>;
ReadStats read_lines(const std::string& path, const ReadOptions& opt, const LineFn& on_line);

// Same, over an in-memory buffer (tests, `explain` text).
ReadStats read_lines_from_buffer(std::string_view text, const ReadOptions& opt, const LineFn& on_line);

}  // namespace dd::logs
