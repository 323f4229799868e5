// MappedFile (mapped_file.h): mmap, MADV_SEQUENTIAL, MADV_DONTNEED behind the reader, and the SIGBUS handler
// that turns a fault past a shrunk file's end into zero pages.
#include "probe/mapped_file.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>

namespace dd::probe {

namespace {

// The mapping this thread reads now (a fault is delivered to the thread that took it).
struct Reading {
  char* base = nullptr;
  uint64_t size = 0;
  volatile sig_atomic_t shrank = 0;
};
thread_local Reading* t_reading = nullptr;
thread_local Reading t_state;  // one mapping read per thread at a time

struct sigaction g_previous {};
uintptr_t g_page = 4096;  // read once at install: the handler calls nothing it need not

void on_sigbus(int sig, siginfo_t* info, void* context) {
  Reading* r = t_reading;
  char* at = static_cast<char*>(info->si_addr);
  if (r && at >= r->base && at < r->base + r->size) {
    char* from = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(at) & ~(g_page - 1));
    // Zero pages from the fault to the end: the faulting read is retried and sees zeros.
    if (mmap(from, static_cast<size_t>(r->base + r->size - from), PROT_READ,
             MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED) {
      r->shrank = 1;
      return;
    }
  }
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) return g_previous.sa_sigaction(sig, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    return g_previous.sa_handler(sig);
  }
  signal(SIGBUS, SIG_DFL);  // not ours: the retried access dies of SIGBUS as it always did
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &g_previous);
  });
}

}  // namespace

Result<MappedFile> MappedFile::map(int fd, uint64_t size) {
  install_handler();
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return Error::from_errno("mmap");
  madvise(p, size, MADV_SEQUENTIAL);
  return MappedFile(static_cast<char*>(p), size);
}

MappedFile::MappedFile(MappedFile&& o) noexcept : base_(o.base_), size_(o.size_), released_(o.released_) {
  o.base_ = nullptr;
  o.size_ = 0;
}

MappedFile::~MappedFile() {
  end_reading();
  if (base_) munmap(base_, size_);
}

void MappedFile::begin_reading() {
  t_state.base = base_;
  t_state.size = size_;
  t_state.shrank = 0;
  t_reading = &t_state;
}

void MappedFile::end_reading() {
  if (t_reading && t_reading->base == base_) t_reading = nullptr;
}

bool MappedFile::shrank() const { return t_state.base == base_ && t_state.shrank; }

void MappedFile::release_before(uint64_t offset) {
  offset &= ~(static_cast<uint64_t>(g_page) - 1);
  if (offset <= released_) return;
  madvise(base_ + released_, offset - released_, MADV_DONTNEED);
  released_ = offset;
}

}  // namespace dd::probe
