// Streaming line reader: read(2) or zlib inflate into a fixed buffer, memchr for newlines, cut long lines; a
// file's reads are bounded in time (probe::read_until), so one that blocks ends instead of hanging.
#include "logs/line_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "probe/mapped_file.h"
#include "probe/regular_file.h"
#include "probe/stdin_text.h"

namespace dd::logs {

namespace {

// Splits a byte stream into lines; keeps at most max_line bytes of a pending partial line.
class Splitter {
 public:
  Splitter(const ReadOptions& opt, const LineFn& fn, ReadStats& st) : opt_(opt), fn_(fn), st_(st) {
    pending_.reserve(1024);
  }

  void feed(const char* p, size_t n) {
    st_.bytes += n;
    sample_controls(p, std::min<size_t>(n, 64 * 1024));
    for (const char* q = p; (q = static_cast<const char*>(memchr(q, 0, p + n - q))) != nullptr; ++q)
      ++st_.nul_bytes;
    const char* end = p + n;
    while (p < end) {
      const char* nl = static_cast<const char*>(memchr(p, '\n', end - p));
      if (!nl) {
        append_partial(p, end - p);
        keep_last();
        return;
      }
      if (pending_.empty() && pending_len_ == 0) {
        emit(std::string_view(p, nl - p), nl - p);
      } else {
        append_partial(p, nl - p);
        emit(pending_, pending_len_);
        keep_last();
        pending_.clear();
        pending_len_ = 0;
      }
      p = nl + 1;
    }
    keep_last();
  }

  // Past opt.binary_after bytes, mostly control bytes in the samples: binary data (/dev/zero on stdin, a
  // core file), not a log. A log with a zero-filled hole from a crash (a few MiB) stays below that.
  bool binary() const {
    return opt_.binary_after > 0 && st_.bytes > opt_.binary_after && control_ * 2 > sampled_;
  }

  void finish() {
    if (!pending_.empty() || pending_len_ > 0) emit(pending_, pending_len_);
    keep_last();
    pending_.clear();
    pending_len_ = 0;
  }

 private:
  void append_partial(const char* p, size_t n) {
    pending_len_ += n;
    if (pending_.size() < opt_.max_line) pending_.append(p, std::min(n, opt_.max_line - pending_.size()));
  }
  void emit(std::string_view line, uint64_t full_len) {
    ++st_.lines;
    if (full_len > st_.longest_line) st_.longest_line = full_len;
    if (line.size() > opt_.max_line) line = line.substr(0, opt_.max_line);
    if (full_len > opt_.max_line) ++st_.truncated_lines;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) last_ = line;
    fn_(line, st_.lines);
  }
  // The last line is copied once per chunk, not once per line (views die with the chunk buffer).
  void keep_last() {
    if (!last_.empty()) st_.last_line.assign(last_.substr(0, 400));
    last_ = {};
  }

  void sample_controls(const char* p, size_t n) {
    sampled_ += n;
    for (size_t i = 0; i < n; ++i) {
      const auto b = static_cast<unsigned char>(p[i]);
      control_ += b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != '\v' && b != 0x1b;
    }
  }

  const ReadOptions& opt_;
  uint64_t sampled_ = 0, control_ = 0;  // bytes looked at, control bytes among them
  const LineFn& fn_;
  ReadStats& st_;
  std::string pending_;
  uint64_t pending_len_ = 0;
  std::string_view last_;
};

// Where the bytes come from: a file (its reads bounded by the input's deadline and idle limit, so a /proc
// file that blocks ends the input with an error) or stdin (bounded by the deadline only: a slow writer such
// as `kubectl logs -f` may pause for long, but `logs -` still ends by the deadline).
struct Source {
  int fd = 0;
  bool file = false;
  std::chrono::steady_clock::time_point deadline;
  std::chrono::milliseconds limit{0};  // the whole read's (deadline is start + limit)
  std::chrono::milliseconds idle{0};

  ssize_t read(char* buf, size_t n) const {
    if (file) return probe::read_until(fd, buf, n, deadline, idle);
    return probe::read_stdin_until(fd, buf, n, deadline);
  }
  // The error text of a failed read (errno as read() left it).
  std::string error() const {
    if (errno != ETIMEDOUT) return std::string("read: ") + std::strerror(errno);
    bool idle_passed = file && std::chrono::steady_clock::now() < deadline;
    return probe::read_timeout_text(idle_passed, idle_passed ? idle : limit) +
           (idle_passed ? "" : "; the rest was not read");
  }
};

std::string binary_error(const ReadStats& st) {
  return fmt::format(
      "binary data, not a log: mostly control bytes in the first {} MiB; the rest was not read",
      st.bytes >> 20);
}

bool gzip_over_cap(uint64_t text_bytes, uint64_t compressed_bytes, const ReadOptions& opt) {
  return opt.gzip_max_ratio > 0 && text_bytes > opt.gzip_floor_bytes &&
         text_bytes / opt.gzip_max_ratio > compressed_bytes;
}

void inflate_stream(const Source& src, std::vector<char>& in, size_t already, Splitter& sp, ReadStats& st,
                    const ReadOptions& opt) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) {
    st.error = "zlib init failed";
    return;
  }
  std::vector<char> out(opt.chunk);
  zs.next_in = reinterpret_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(already);
  uint64_t compressed_read = already;
  bool stream_end = false;
  for (;;) {
    if (zs.avail_in == 0) {
      ssize_t r = src.read(in.data(), in.size());
      if (r < 0) {
        st.error = src.error();
        break;
      }
      if (r == 0) {
        if (!stream_end) st.error = "truncated gzip stream (ends before the end of the compressed data)";
        break;
      }
      zs.next_in = reinterpret_cast<Bytef*>(in.data());
      zs.avail_in = static_cast<uInt>(r);
      compressed_read += static_cast<uint64_t>(r);
    }
    if (stream_end) {  // another gzip member follows (gzip a b > c)
      inflateReset(&zs);
      stream_end = false;
    }
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    int ret = inflate(&zs, Z_NO_FLUSH);
    if (ret == Z_NEED_DICT || ret == Z_DATA_ERROR || ret == Z_MEM_ERROR || ret == Z_STREAM_ERROR) {
      st.error = std::string("corrupt gzip data: ") + (zs.msg ? zs.msg : "inflate error");
      sp.feed(out.data(), out.size() - zs.avail_out);
      break;
    }
    sp.feed(out.data(), out.size() - zs.avail_out);
    if (ret == Z_STREAM_END) stream_end = true;
    if (gzip_over_cap(st.bytes, compressed_read - zs.avail_in, opt)) {  // the more specific diagnosis first
      st.gzip_capped = true;
      st.error = fmt::format(
          "decompression stopped after {} MiB of text: it expands more than {}x (a compression bomb?); the "
          "rest was not read",
          st.bytes >> 20, opt.gzip_max_ratio);
      break;
    }
    if (sp.binary()) {
      st.error = binary_error(st);
      break;
    }
  }
  inflateEnd(&zs);
}

// A large file read through a mapping, window by window (no copy out of the page cache); what was appended
// after it was opened is read the usual way. False, with nothing read, when it cannot be mapped or is gzip
// (the caller reads it instead).
bool read_mapped(const probe::RegularFile& file, const Source& src, Splitter& sp, ReadStats& st,
                 const ReadOptions& opt) {
  auto mapped = probe::MappedFile::map(file.fd(), file.size());
  if (!mapped) return false;
  const std::string_view all = mapped->bytes();
  mapped->begin_reading();
  if (static_cast<unsigned char>(all[0]) == 0x1f && all.size() >= 2 &&
      static_cast<unsigned char>(all[1]) == 0x8b)
    return false;
  for (size_t at = 0; at < all.size(); at += opt.map_window) {
    sp.feed(all.data() + at, std::min(opt.map_window, all.size() - at));
    mapped->release_before(at);
    if (mapped->shrank()) {
      st.error = "the file shrank while it was read (truncated by log rotation?): the rest was not read";
      break;
    }
    if (sp.binary()) {
      st.error = binary_error(st);
      break;
    }
    if (std::chrono::steady_clock::now() > src.deadline) {
      st.error = probe::read_timeout_text(false, src.limit) + "; the rest was not read";
      break;
    }
  }
  mapped->end_reading();
  if (st.error.empty() && ::lseek(file.fd(), static_cast<off_t>(all.size()), SEEK_SET) >= 0) {
    std::vector<char> buf(opt.chunk);  // grown since it was opened: the rest as a stream
    ssize_t r;
    while ((r = src.read(buf.data(), buf.size())) > 0) sp.feed(buf.data(), static_cast<size_t>(r));
    if (r < 0) st.error = src.error();
  }
  sp.finish();
  return true;
}

}  // namespace

ReadStats read_lines(const std::string& path, const ReadOptions& opt, const LineFn& on_line) {
  ReadStats st;
  std::optional<probe::RegularFile> file;  // closes the descriptor on return
  Source src{.deadline = std::chrono::steady_clock::now() + opt.deadline,
             .limit = opt.deadline};  // "-": stdin
  if (path != "-") {
    auto opened = probe::open_regular_file(path);  // a FIFO or device is refused, never read
    if (!opened) {
      const Error& e = opened.error();
      st.error = e.err ? std::string("cannot open: ") + std::strerror(e.err) : e.message();
      return st;
    }
    file.emplace(std::move(*opened));
    src = {.fd = file->fd(),
           .file = true,
           .deadline = std::chrono::steady_clock::now() + opt.deadline,
           .limit = opt.deadline,
           .idle = opt.idle};
  }
  Splitter sp(opt, on_line, st);
  if (file && file->size() >= opt.map_at_least && read_mapped(*file, src, sp, st, opt)) return st;
  std::vector<char> buf(opt.chunk);
  ssize_t r = src.read(buf.data(), buf.size());
  if (r < 0) {
    st.error = src.error();
    return st;
  }
  if (r >= 2 && static_cast<unsigned char>(buf[0]) == 0x1f && static_cast<unsigned char>(buf[1]) == 0x8b) {
    st.gzip = true;
    inflate_stream(src, buf, static_cast<size_t>(r), sp, st, opt);
    sp.finish();
    return st;
  }
  while (r > 0) {
    sp.feed(buf.data(), static_cast<size_t>(r));
    if (sp.binary()) {
      st.error = binary_error(st);
      break;
    }
    r = src.read(buf.data(), buf.size());
  }
  if (r < 0) st.error = src.error();
  sp.finish();
  return st;
}

ReadStats read_lines_from_buffer(std::string_view text, const ReadOptions& opt, const LineFn& on_line) {
  ReadStats st;
  Splitter sp(opt, on_line, st);
  sp.feed(text.data(), text.size());
  sp.finish();
  return st;
}

}  // namespace dd::logs
