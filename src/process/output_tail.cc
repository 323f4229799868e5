// OutputTail: per source a lazily opened fd, the unterminated rest of the last read, and a ring of last
// lines; each poll() gathers the echoed lines of every source into one buffer and writes it once.
#include "process/output_tail.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "common/redact.h"

namespace dd::process {
namespace tail_detail {  // named, not anonymous: OutputTail::State derives from it

struct SourceState {
  OutputTail::Source src;
  int fd = -1;
  bool finished = false;
  std::string partial;    // bytes after the last line end
  bool after_cr = false;  // the last line ended with a \r at the end of a read: a \n next belongs to it
  std::deque<std::string> lines;
  OutputTail::Clock::time_point last_growth;
  uint64_t bytes = 0;
  uint64_t total_lines = 0;  // whole lines taken so far
};

}  // namespace tail_detail
namespace {
using tail_detail::SourceState;

constexpr size_t kMaxLineBytes = 64 * 1024;  // a longer unterminated line is emitted in pieces of this size
constexpr size_t kReadChunk = 1 << 20;

// Writes everything, through EINTR and short writes; a full non-blocking terminal gets 1 s to drain. Errors
// (EPIPE from a closed terminal among them; the launcher ignores SIGPIPE) drop the rest: echo is a courtesy,
// the log files hold every byte.
void write_fully(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(size_t(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, 1000) > 0) continue;
    }
    return;
  }
}

// One whole line of st: into the echo buffer and the ring of last lines (reusing the oldest string).
void take_line(std::string_view line, SourceState& st, size_t keep, const std::string* prefix,
               std::string& echo) {
  std::deque<std::string>& lines = st.lines;
  ++st.total_lines;
  // The terminal gets secrets redacted (the worker's log file keeps every byte), and a long line in pieces of
  // kMaxLineBytes, each prefixed, however it was read (in one read, or cut while it had no newline yet).
  // A line that already begins with the prefix (PyTorch writes "[rank1]: " before its own tracebacks) is not
  // prefixed twice.
  const bool own = prefix && !prefix->empty() && line.starts_with(*prefix);
  for (size_t at = 0; prefix && (at == 0 || at < line.size()); at += kMaxLineBytes) {
    if (at > 0 || !own) echo += *prefix;
    echo += redact_text(std::string(line.substr(at, kMaxLineBytes)));
    echo += '\n';
  }
  if (keep == 0) return;
  if (lines.size() < keep) {
    lines.emplace_back(line);
    return;
  }
  std::string reuse = std::move(lines.front());
  lines.pop_front();
  reuse.assign(line);
  lines.push_back(std::move(reuse));
}

// The first line end in data[0, n): a \n, or a \r (a progress bar such as tqdm's redraws its line after a \r
// and ends it only when done: without this its updates would wait for 64 KiB); nullptr when none.
const char* line_end(const char* data, size_t n) {
  const char* nl = static_cast<const char*>(std::memchr(data, '\n', n));
  const char* cr = static_cast<const char*>(std::memchr(data, '\r', nl ? size_t(nl - data) : n));
  return cr ? cr : nl;
}

// Splits data into lines of st (the first one continues st.partial); the rest becomes st.partial. A line ends
// at \n, \r or \r\n (one end, also when the \n comes in the next read).
void split_lines(SourceState& st, const char* data, size_t n, size_t keep, std::string& echo) {
  const std::string* prefix = st.src.echo ? &st.src.prefix : nullptr;
  if (n > 0 && st.after_cr && *data == '\n') ++data, --n;
  if (n > 0) st.after_cr = false;
  while (n > 0) {
    const char* end = line_end(data, n);
    if (!end) break;
    size_t len = size_t(end - data);
    if (st.partial.empty()) {
      if (len > 0 || *end == '\n')  // a bar's leading \r ends no line of its own
        take_line(std::string_view(data, len), st, keep, prefix, echo);
    } else {
      st.partial.append(data, len);
      take_line(st.partial, st, keep, prefix, echo);
      st.partial.clear();
    }
    size_t used = len + 1;
    if (*end == '\r' && used < n && end[1] == '\n') ++used;
    st.after_cr = *end == '\r' && used == n;
    data += used;
    n -= used;
  }
  while (n > 0) {
    size_t take = std::min(n, kMaxLineBytes - st.partial.size());
    st.partial.append(data, take);
    data += take;
    n -= take;
    if (st.partial.size() == kMaxLineBytes) {
      take_line(st.partial, st, keep, prefix, echo);
      st.partial.clear();
    }
  }
}

// Reads at most max bytes of st's file; false when nothing came (or the file does not exist yet).
bool read_source(SourceState& st, size_t max, size_t keep, std::string& echo, std::vector<char>& buf) {
  if (st.finished) return false;
  if (st.fd < 0) {
    // Never blocks on a FIFO put in the log's place, and follows only a regular file (not /dev/zero).
    st.fd = ::open(st.src.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (st.fd < 0) return false;
    struct stat sb {};
    if (::fstat(st.fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
      ::close(st.fd);
      st.fd = -1;
      st.finished = true;
      return false;
    }
  }
  size_t total = 0;
  while (total < max) {
    size_t want = std::min(max - total, kReadChunk);
    if (buf.size() < want) buf.resize(want);
    ssize_t n = ::read(st.fd, buf.data(), want);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    split_lines(st, buf.data(), size_t(n), keep, echo);
    total += size_t(n);
  }
  if (total == 0) return false;
  st.bytes += total;
  st.last_growth = OutputTail::Clock::now();
  return true;
}

}  // namespace

struct OutputTail::State : tail_detail::SourceState {};

OutputTail::OutputTail(std::vector<Source> sources, int out_fd, size_t keep_lines)
    : s_(new std::vector<State>(sources.size())), out_fd_(out_fd), keep_(keep_lines) {
  const Clock::time_point now = Clock::now();
  for (size_t i = 0; i < sources.size(); ++i) {
    (*s_)[i].src = std::move(sources[i]);
    (*s_)[i].last_growth = now;
  }
}

OutputTail::~OutputTail() {
  for (State& st : *s_)
    if (st.fd >= 0) ::close(st.fd);
  delete s_;
}

bool OutputTail::poll(size_t max_bytes_per_file) {
  std::string echo;
  std::vector<char> buf;
  bool grew = false;
  for (State& st : *s_) grew |= read_source(st, max_bytes_per_file, keep_, echo, buf);
  this->echo(echo);
  return grew;
}

void OutputTail::finish(size_t i) {
  State& st = (*s_)[i];
  if (st.finished) return;
  std::string echo;
  std::vector<char> buf;
  while (read_source(st, 4u << 20, keep_, echo, buf)) {  // to the end, echoing as it goes
    this->echo(echo);
    echo.clear();
  }
  if (!st.partial.empty()) {
    take_line(st.partial, st, keep_, st.src.echo ? &st.src.prefix : nullptr, echo);
    st.partial.clear();
  }
  if (st.fd >= 0) ::close(st.fd);
  st.fd = -1;
  st.finished = true;
  this->echo(echo);
}

void OutputTail::echo(const std::string& text) {
  if (text.empty() || out_fd_ < 0) return;
  if (before_echo_) before_echo_();
  write_fully(out_fd_, text);
}

const std::deque<std::string>& OutputTail::last_lines(size_t i) const { return (*s_)[i].lines; }

OutputTail::Clock::time_point OutputTail::last_growth(size_t i) const { return (*s_)[i].last_growth; }

uint64_t OutputTail::bytes_read(size_t i) const { return (*s_)[i].bytes; }

uint64_t OutputTail::lines_taken(size_t i) const { return (*s_)[i].total_lines; }

}  // namespace dd::process
