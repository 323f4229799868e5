// EventLogLimiter: lets at most N lines through per window and then one summary line, so a flood of bad
// connections cannot flood the master's log (or its memory of recent lines).
#pragma once
#include <string>
#include <vector>

#include "rendezvous/store.h"

namespace dd::rendezvous {

class EventLogLimiter {
 public:
  explicit EventLogLimiter(size_t per_window = 20,
                           std::chrono::milliseconds window = std::chrono::seconds(10))
      : per_window_(per_window), window_(window) {}

  // The lines to log now for this event: the event itself while under the limit, a summary of the ones held
  // back when a new window opens, or nothing.
  std::vector<std::string> admit(const std::string& line, Clock::time_point now) {
    std::vector<std::string> out;
    if (now - window_start_ >= window_) {
      if (held_back_)
        out.push_back(std::to_string(held_back_) + " more connection events not logged (limit " +
                      std::to_string(per_window_) + " per " + std::to_string(window_.count() / 1000) + " s)");
      window_start_ = now;
      in_window_ = held_back_ = 0;
    }
    if (in_window_ < per_window_) {
      ++in_window_;
      out.push_back(line);
    } else {
      ++held_back_;
    }
    return out;
  }

 private:
  size_t per_window_;
  std::chrono::milliseconds window_;
  Clock::time_point window_start_{};
  size_t in_window_ = 0, held_back_ = 0;
};

}  // namespace dd::rendezvous
