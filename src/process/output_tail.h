// Follows the workers' log files as they grow. Workers write straight into their files (so the file holds
// every byte even when the launcher dies); this reads what each file gained, echoes whole lines to the
// terminal with its source's prefix ("[rank3]: "; never a line cut in two, lines over 64 KiB excepted, a last
// line without newline echoed at finish), keeps each worker's last lines and notes when each last wrote.
#pragma once
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace dd::process {

class OutputTail {
 public:
  using Clock = std::chrono::steady_clock;
  struct Source {
    std::string path;    // the worker's log file (may not exist yet)
    std::string prefix;  // "[rank3]: "
    bool echo = false;   // copy its lines to out
  };
  // out: where echoed lines go (a file descriptor, normally 1). keep_lines: last lines kept per source.
  OutputTail(std::vector<Source> sources, int out_fd, size_t keep_lines = 40);
  ~OutputTail();
  // Reads what each file gained since the last call, at most max_bytes per file per call; echoes whole
  // lines in one write per call. Returns true when any file grew.
  bool poll(size_t max_bytes_per_file = 4u << 20);
  // The worker is gone: reads its file to the end and echoes a last line that had no newline.
  void finish(size_t i);
  // Called just before each write of echoed lines, never when there is nothing to echo (the launcher erases
  // its status line there, so a worker's line never lands inside it).
  void set_before_echo(std::function<void()> f) { before_echo_ = std::move(f); }
  const std::deque<std::string>& last_lines(size_t i) const;
  Clock::time_point last_growth(size_t i) const;  // the start time until the file first grows
  uint64_t bytes_read(size_t i) const;
  // Whole lines taken from source i so far: the newest (lines_taken - seen) of last_lines(i) are new since a
  // caller last looked (all of last_lines when more came than it keeps).
  uint64_t lines_taken(size_t i) const;

 private:
  struct State;
  std::vector<State>* s_;  // pimpl keeps <fcntl.h> out of the header
  int out_fd_;
  size_t keep_;
  std::function<void()> before_echo_;
  void echo(const std::string& text);
};

}  // namespace dd::process
