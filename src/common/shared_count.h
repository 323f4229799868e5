// A count that several threads draw from under one cap: what makes a limit hold across the files and the
// threads of one run (the processes `logs` keeps, over all its inputs), where a per-file cap multiplies by
// the number of files. Lock-free; take() never waits.
#pragma once
#include <atomic>
#include <cstdint>

namespace dd {

class SharedCount {
 public:
  explicit SharedCount(uint64_t cap) : cap_(cap) {}
  SharedCount(const SharedCount&) = delete;
  SharedCount& operator=(const SharedCount&) = delete;

  // Takes n when the total taken stays within the cap; false (nothing taken, reached() true) when not.
  bool take(uint64_t n = 1) {
    uint64_t now = used_.load(std::memory_order_relaxed);
    do {
      if (n > cap_ || now > cap_ - n) {
        reached_.store(true, std::memory_order_relaxed);
        return false;
      }
    } while (!used_.compare_exchange_weak(now, now + n, std::memory_order_relaxed));
    return true;
  }
  bool reached() const { return reached_.load(std::memory_order_relaxed); }
  uint64_t used() const { return used_.load(std::memory_order_relaxed); }
  uint64_t cap() const { return cap_; }

 private:
  const uint64_t cap_;
  std::atomic<uint64_t> used_{0};
  std::atomic<bool> reached_{false};
};

}  // namespace dd
