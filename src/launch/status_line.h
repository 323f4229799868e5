// Draws the live status line (status_text.h) in place on a terminal: "\r" TEXT "\e[K", redrawn in place at
// most once a second, erased ("\r\e[K") before anything else is written there (so no line is ever garbled)
// and drawn again below what was written at the next update (so it stays at the bottom while workers print).
#pragma once
#include <chrono>
#include <optional>
#include <string>

namespace dd::launch {

class StatusLine {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kRedrawEvery{1000};
  // fd < 0: off (every call does nothing).
  explicit StatusLine(int fd) : fd_(fd) {}
  ~StatusLine() { erase(); }
  StatusLine(const StatusLine&) = delete;
  StatusLine& operator=(const StatusLine&) = delete;
  bool on() const { return fd_ >= 0; }
  // Draws text when the line is not shown (never drawn, or erased since), else over the shown one when
  // kRedrawEvery has passed since that was drawn.
  void update(const std::string& text, Clock::time_point now);
  // Erases it when it is drawn, so the next write starts on an empty line; nothing when it is not.
  void erase();

 private:
  int fd_;
  bool drawn_ = false;
  std::optional<Clock::time_point> last_draw_;
};

}  // namespace dd::launch
