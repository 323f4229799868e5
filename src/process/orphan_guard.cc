// The orphan guard process: a socket pair (MSG_NOSIGNAL: a dead guard never raises SIGPIPE in the launcher),
// 5-byte messages ('+' or '-' and an int32 process group, 'q' to dismiss, 'd' and an int32 length followed by
// that many bytes of a directory path), and a child that holds nothing but its end of the pair and, when the
// launcher's end closes without 'q', kills the registered groups and removes the registered directory.
//
// What kills the launcher must miss the guard, or the workers' children outlive both (each worker dies with
// the launcher through PR_SET_PDEATHSIG, but what a worker started is re-parented to init). So the guard
// takes no signal a launcher takes from outside: it leaves the launcher's process group (a kill of the
// group, a terminal's Ctrl-C), ignores the signals a user or a scheduler sends a job (INT, TERM, HUP, QUIT,
// USR1, USR2, ALRM: Slurm signals every process of a step), and drops the launcher's names: its command name
// becomes "dd-orphan-guard" and its command line (the launcher's, copied by fork) is overwritten in place, so
// `killall -9 distdoctor`, `pkill distdoctor` and `pkill -f "distdoctor launch"` end the launcher and leave
// the guard to end the job. Only SIGKILL aimed at the guard's own pid stops it; nothing in user space can
// outlive that (a PID namespace would, at the price of privileges and of pids the job no longer shares with
// the machine), and a guard of the guard would only move the question one process up.
#include "process/orphan_guard.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

GroupSet guard_groups;     // the guard's only state: static, so no allocation and no large stack frame
char guard_dir[PATH_MAX];  // the directory to remove ("" = none)

struct LinuxDirent64 {
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};

// Removes what dirfd holds, depth levels deep, with raw syscalls only (async-signal-safe). Reads the
// directory again after a pass that removed something (removals shift the entries), stops after one that
// removed nothing (what is left cannot be removed).
void remove_contents(int dirfd, int depth) {
  char buf[4096];
  for (bool removed = true; removed;) {
    removed = false;
    ::lseek(dirfd, 0, SEEK_SET);
    for (long n; (n = ::syscall(SYS_getdents64, dirfd, buf, sizeof buf)) > 0;) {
      for (long off = 0; off < n;) {
        auto* d = reinterpret_cast<LinuxDirent64*>(buf + off);
        off += d->reclen;
        if (std::strcmp(d->name, ".") == 0 || std::strcmp(d->name, "..") == 0) continue;
        int sub = ::openat(dirfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) {
          if (depth > 0) remove_contents(sub, depth - 1);
          ::close(sub);
        }
        removed |= ::unlinkat(dirfd, d->name, sub >= 0 ? AT_REMOVEDIR : 0) == 0;
      }
    }
  }
}

void remove_guard_dir() {
  if (guard_dir[0] == 0) return;
  int fd = ::open(guard_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  remove_contents(fd, 4);
  ::close(fd);
  ::rmdir(guard_dir);
}

constexpr char kGuardName[] = "dd-orphan-guard";  // 15 characters: the most a command name holds

// The launcher's names off the guard (see the top of this file): its command name, and its command line in
// the argument area fork copied (NULs after the new name; an area too small keeps what fits).
void rename_guard(char* args, size_t args_size) {
  ::prctl(PR_SET_NAME, kGuardName, 0, 0, 0);
  if (args == nullptr || args_size == 0) return;
  std::memset(args, 0, args_size);
  std::memcpy(args, kGuardName, std::min(args_size - 1, sizeof kGuardName - 1));
}

// The guard's whole life. Async-signal-safe calls only (it is forked from a process that may have threads).
[[noreturn]] void guard_main(int fd, char* args, size_t args_size) {
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM})
    ::sigaction(s, &ign, nullptr);
  rename_guard(args, args_size);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::setpgid(0, 0);  // a kill of the launcher's process group leaves the guard to do its work
  guard_close_fds_but(fd);
  char buf[kMessageBytes * 256 + PATH_MAX];
  size_t have = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf + have, sizeof buf - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the launcher is gone without dismissing us
    have += size_t(n);
    size_t off = 0;
    while (have - off >= kMessageBytes) {
      int32_t value;
      std::memcpy(&value, buf + off + 1, sizeof value);
      if (buf[off] == 'q') _exit(0);
      if (buf[off] == 'd') {  // a path follows: wait for all of it
        if (value < 0 || value >= PATH_MAX || have - off < kMessageBytes + size_t(value)) break;
        std::memcpy(guard_dir, buf + off + kMessageBytes, size_t(value));
        guard_dir[value] = 0;
        off += kMessageBytes + size_t(value);
        continue;
      }
      if (value > 0 && buf[off] == '+') guard_groups.add(value);
      if (value > 0 && buf[off] == '-') guard_groups.remove(value);
      off += kMessageBytes;
    }
    std::memmove(buf, buf + off, have - off);
    have -= off;
  }
  for (int i = 0; i < guard_groups.count; ++i) ::kill(-guard_groups.groups[i], SIGKILL);
  remove_guard_dir();
  _exit(0);
}

}  // namespace

Result<std::unique_ptr<OrphanGuard>> OrphanGuard::start(char* own_args, size_t own_args_size) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return Error::from_errno("socketpair");
  pid_t pid = ::fork();
  if (pid < 0) {
    Error e = Error::from_errno("fork");
    ::close(sv[0]);
    ::close(sv[1]);
    return e;
  }
  if (pid == 0) guard_main(sv[1], own_args, own_args_size);
  ::close(sv[1]);
  return std::unique_ptr<OrphanGuard>(new OrphanGuard(pid, sv[0]));
}

namespace {
void send_bytes(int fd, const char* data, size_t size) {
  size_t off = 0;
  while (off < size) {
    ssize_t n = ::send(fd, data + off, size - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the guard died: nothing to tell
    off += size_t(n);
  }
}

void send_message(int fd, char op, int32_t value) {
  if (fd < 0) return;
  char msg[kMessageBytes];
  msg[0] = op;
  std::memcpy(msg + 1, &value, sizeof value);
  send_bytes(fd, msg, sizeof msg);
}
}  // namespace

void OrphanGuard::watch_dir(const std::string& path) {
  if (fd_ < 0 || path.empty() || path.size() >= PATH_MAX) return;
  send_message(fd_, 'd', int32_t(path.size()));
  send_bytes(fd_, path.data(), path.size());
}

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
