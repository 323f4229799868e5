// summarize_stack(): parses faulthandler's and py-spy's stack text (see python_stack.h).
#include "launch/python_stack.h"

#include <fmt/format.h>

#include <sstream>
#include <vector>

namespace dd::launch {

namespace {

bool starts_thread(const std::string& l) {
  return l.rfind("Current thread ", 0) == 0 || l.rfind("Thread ", 0) == 0;
}

// faulthandler: `  File "X", line N in F`
bool faulthandler_frame(const std::string& l, StackFrame& f) {
  size_t a = l.find("File \"");
  if (a == std::string::npos) return false;
  size_t b = l.find("\", line ", a + 6);
  if (b == std::string::npos) return false;
  f.file = l.substr(a + 6, b - a - 6);
  size_t in = l.find(" in ", b + 8);
  f.line = std::atoi(l.c_str() + b + 8);
  f.func = in == std::string::npos ? "" : l.substr(in + 4);
  return true;
}

// py-spy: `    F (X:N)`
bool py_spy_frame(const std::string& l, StackFrame& f) {
  if (l.empty() || l.back() != ')' || l.rfind("    ", 0) != 0) return false;
  size_t open = l.rfind(" (");
  size_t colon = l.rfind(':');
  if (open == std::string::npos || colon == std::string::npos || colon < open) return false;
  f.func = l.substr(4, open - 4);
  f.file = l.substr(open + 2, colon - open - 2);
  f.line = std::atoi(l.c_str() + colon + 1);
  return true;
}

bool library_file(const std::string& file) {
  return file.find("site-packages/") != std::string::npos || file.find("dist-packages/") != std::string::npos ||
         file.find("/lib/python3") != std::string::npos || file.rfind("<frozen", 0) == 0;
}

bool collective_frame(const StackFrame& f) {
  if (f.file.find("torch/distributed/") != std::string::npos) return true;
  if (f.file.find("torch/cuda/") != std::string::npos && f.func == "synchronize") return true;
  return f.func == "wait" && f.file.find("torch/") != std::string::npos;
}

std::string base_name(const std::string& file) {
  size_t s = file.rfind('/');
  return s == std::string::npos ? file : file.substr(s + 1);
}

// The thread whose outermost frame is the user's script (`<module>` of a file outside the libraries): the main
// thread; else the one faulthandler calls "Current thread" (the main thread takes the signal in CPython's
// handler) or py-spy calls "MainThread"; else the first with frames. Other threads (PyTorch's dump thread
// importing torch._inductor, data loader threads) are not where the rank waits.
std::vector<StackFrame> main_thread(const std::string& text) {
  struct Block {
    bool current = false;
    std::vector<StackFrame> frames;
  };
  std::vector<Block> blocks;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (!l.empty() && l.back() == '\r') l.pop_back();
    if (starts_thread(l)) {
      blocks.push_back({l.rfind("Current thread ", 0) == 0 || l.find("\"MainThread\"") != std::string::npos, {}});
      continue;
    }
    StackFrame f;
    if (!blocks.empty() && (faulthandler_frame(l, f) || py_spy_frame(l, f))) blocks.back().frames.push_back(f);
  }
  for (const Block& b : blocks)
    if (!b.frames.empty() && b.frames.back().func == "<module>" && !library_file(b.frames.back().file))
      return b.frames;
  for (const Block& b : blocks)
    if (b.current && !b.frames.empty()) return b.frames;
  for (const Block& b : blocks)
    if (!b.frames.empty()) return b.frames;
  return {};
}

}  // namespace

StackSummary summarize_stack(const std::string& text) {
  StackSummary s;
  s.frames = main_thread(text);
  if (s.frames.empty()) return s;
  const StackFrame& top = s.frames.front();
  s.innermost = fmt::format("{} ({}:{})", top.func, top.file, top.line);
  for (const StackFrame& f : s.frames) {
    s.in_collective |= collective_frame(f);
    if (s.user_at.empty() && !library_file(f.file)) {
      s.user_at = fmt::format("{}:{} in {}", base_name(f.file), f.line, f.func);
      s.user_func = base_name(f.file) + ":" + f.func;
    }
  }
  if (s.user_at.empty()) s.user_at = s.innermost;
  return s;
}

std::string StackSummary::place() const {
  return (user_func.empty() ? std::string("?") : user_func) + " > " + (frames.empty() ? "" : frames.front().func);
}

}  // namespace dd::launch
