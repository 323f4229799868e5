// A cap on how much may exist at once across threads (a counting semaphore in units: the values of Flight
// Recorder dumps being decoded by `logs`' threads at the same time). acquire(n) waits, up to a deadline,
// until n more fit; Hold gives them back when it ends. One request larger than the cap is refused at once,
// never waited for, so no wait can last past the deadline nor wait for something that cannot happen.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace dd {

class InFlightGate {
 public:
  explicit InFlightGate(uint64_t cap) : cap_(cap) {}
  InFlightGate(const InFlightGate&) = delete;
  InFlightGate& operator=(const InFlightGate&) = delete;

  // Takes n units once they fit (others gave theirs back), or false when n is over the cap or the deadline
  // passed first.
  bool acquire(uint64_t n, std::chrono::steady_clock::time_point deadline) {
    if (n > cap_) return false;
    std::unique_lock lock(mu_);
    if (!room_.wait_until(lock, deadline, [&] { return used_ + n <= cap_; })) return false;
    used_ += n;
    return true;
  }
  void release(uint64_t n) {
    {
      std::lock_guard lock(mu_);
      used_ -= n;
    }
    room_.notify_all();
  }
  uint64_t cap() const { return cap_; }

  // Units held until the end of a scope (nothing when the gate is null or acquire failed).
  class Hold {
   public:
    Hold(InFlightGate* gate, uint64_t n, std::chrono::steady_clock::time_point deadline)
        : gate_(gate), n_(n), ok_(!gate || gate->acquire(n, deadline)) {}
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    ~Hold() {
      if (gate_ && ok_) gate_->release(n_);
    }
    bool ok() const { return ok_; }

   private:
    InFlightGate* gate_;
    uint64_t n_;
    bool ok_;
  };

 private:
  const uint64_t cap_;
  std::mutex mu_;
  std::condition_variable room_;
  uint64_t used_ = 0;
};

}  // namespace dd
