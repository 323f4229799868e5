// The orphan guard process: a socket pair (MSG_NOSIGNAL: a dead guard never raises SIGPIPE in the launcher),
// 5-byte messages ('+' or '-' and an int32 process group, 'q' to dismiss), and a child that holds nothing but
// its end of the pair and kills the registered groups when the launcher's end closes without 'q'.
#include "process/orphan_guard.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace dd::process {
namespace {

constexpr int kMaxGroups = 4096;
constexpr size_t kMessageBytes = 5;

// Every fd but keep (stdio included: the guard must not hold the launcher's terminal or pipes open).
void guard_close_fds_but(int keep) {
#ifdef SYS_close_range
  if (keep > 0 && ::syscall(SYS_close_range, 0u, unsigned(keep - 1), 0u) == 0 &&
      ::syscall(SYS_close_range, unsigned(keep + 1), ~0u, 0u) == 0)
    return;
#endif
  for (int fd = 0; fd < 65536; ++fd)
    if (fd != keep) ::close(fd);
}

struct GroupSet {
  pid_t groups[kMaxGroups];
  int count = 0;
  void add(pid_t g) {
    for (int i = 0; i < count; ++i)
      if (groups[i] == g) return;
    if (count < kMaxGroups) groups[count++] = g;
  }
  void remove(pid_t g) {
    for (int i = 0; i < count; ++i)
      if (groups[i] == g) {
        groups[i] = groups[--count];
        return;
      }
  }
};

GroupSet guard_groups;  // the guard's only state: static, so no allocation and no large stack frame

// The guard's whole life. Async-signal-safe calls only (it is forked from a process that may have threads).
[[noreturn]] void guard_main(int fd) {
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) ::sigaction(s, &ign, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::setpgid(0, 0);  // a kill of the launcher's process group leaves the guard to do its work
  guard_close_fds_but(fd);
  char buf[kMessageBytes * 256];
  size_t have = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf + have, sizeof buf - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the launcher is gone without dismissing us
    have += size_t(n);
    size_t off = 0;
    for (; have - off >= kMessageBytes; off += kMessageBytes) {
      int32_t pgid;
      std::memcpy(&pgid, buf + off + 1, sizeof pgid);
      if (buf[off] == 'q') _exit(0);
      if (pgid <= 0) continue;
      if (buf[off] == '+') guard_groups.add(pgid);
      if (buf[off] == '-') guard_groups.remove(pgid);
    }
    std::memmove(buf, buf + off, have - off);
    have -= off;
  }
  for (int i = 0; i < guard_groups.count; ++i) ::kill(-guard_groups.groups[i], SIGKILL);
  _exit(0);
}

}  // namespace

Result<std::unique_ptr<OrphanGuard>> OrphanGuard::start() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return Error::from_errno("socketpair");
  pid_t pid = ::fork();
  if (pid < 0) {
    Error e = Error::from_errno("fork");
    ::close(sv[0]);
    ::close(sv[1]);
    return e;
  }
  if (pid == 0) guard_main(sv[1]);
  ::close(sv[1]);
  return std::unique_ptr<OrphanGuard>(new OrphanGuard(pid, sv[0]));
}

namespace {
void send_message(int fd, char op, pid_t pgid) {
  if (fd < 0) return;
  char msg[kMessageBytes];
  msg[0] = op;
  int32_t g = pgid;
  std::memcpy(msg + 1, &g, sizeof g);
  size_t off = 0;
  while (off < sizeof msg) {
    ssize_t n = ::send(fd, msg + off, sizeof msg - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the guard died: nothing to tell
    off += size_t(n);
  }
}
}  // namespace

void OrphanGuard::watch_group(pid_t pgid) { send_message(fd_, '+', pgid); }

void OrphanGuard::forget_group(pid_t pgid) { send_message(fd_, '-', pgid); }

void OrphanGuard::dismiss() {
  if (fd_ < 0) return;
  send_message(fd_, 'q', 0);
  ::close(fd_);
  fd_ = -1;
  // The guard exits at once on 'q'; reap it within ~500 ms, else kill it (it cannot be in the way).
  int ws = 0;
  for (int i = 0; i < 500; ++i) {
    pid_t r = ::waitpid(pid_, &ws, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) {
      pid_ = -1;
      return;
    }
    ::usleep(1000);
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &ws, 0);
  pid_ = -1;
}

OrphanGuard::~OrphanGuard() { dismiss(); }

}  // namespace dd::process
