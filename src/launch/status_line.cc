// StatusLine (see status_line.h): one write per draw or erase; a failed write is dropped (the status line is
// a courtesy: the logs and the final report hold everything).
#include "launch/status_line.h"

#include <unistd.h>

#include <cerrno>

namespace dd::launch {

namespace {

void write_once(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n > 0) {
      off += size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return;
  }
}

}  // namespace

void StatusLine::update(const std::string& text, Clock::time_point now) {
  if (fd_ < 0) return;
  if (drawn_ && last_draw_ && now - *last_draw_ < kRedrawEvery) return;
  write_once(fd_, "\r" + text + "\033[K");
  drawn_ = true;
  last_draw_ = now;
}

void StatusLine::erase() {
  if (fd_ < 0 || !drawn_) return;
  write_once(fd_, "\r\033[K");
  drawn_ = false;
}

}  // namespace dd::launch
