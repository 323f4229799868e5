// read_stdin_until (stdin_text.h): poll for the time left, then read what is there; read_stdin reads with it
// until the end, the byte cap or the deadline. The descriptor's flags are left as they are (a terminal's
// description is shared).
#include "probe/stdin_text.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace dd::probe {

Result<StdinText> read_stdin(const ReadLimits& limits, int fd) {
  const auto deadline = std::chrono::steady_clock::now() + limits.deadline;
  StdinText out;
  std::string buf(1 << 16, '\0');
  for (;;) {
    const uint64_t room = limits.max_bytes - out.text.size();
    ssize_t n =
        read_stdin_until(fd, buf.data(), room == 0 ? 1 : std::min<uint64_t>(room, buf.size()), deadline);
    if (n < 0 && errno == ETIMEDOUT && std::chrono::steady_clock::now() >= deadline) {  // not a socket's
      out.timed_out = true;
      return out;
    }
    if (n < 0) return Error::from_errno("read stdin");
    if (n == 0) return out;
    if (room == 0) {  // one byte past the cap: there is more, left unread
      out.truncated = true;
      return out;
    }
    out.text.append(buf.data(), static_cast<size_t>(n));
  }
}

ssize_t read_stdin_until(int fd, char* buf, size_t n, std::chrono::steady_clock::time_point deadline) {
  using namespace std::chrono;
  for (;;) {
    const auto now = steady_clock::now();
    if (now >= deadline) {  // only then: read_stdin tells this timeout from a socket's ETIMEDOUT by it
      errno = ETIMEDOUT;
      return -1;
    }
    const int64_t left = duration_cast<milliseconds>(deadline - now).count() + 1;  // never 0 before it
    pollfd p{fd, POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 60'000)));
    if (ready < 0 && errno != EINTR) return -1;
    if (ready <= 0) continue;  // the loop checks the time left
    ssize_t r = ::read(fd, buf, n);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    return r;
  }
}

}  // namespace dd::probe
