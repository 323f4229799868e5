// A worker's Python stack as launch takes it (faulthandler's "File "X", line N in F" lines, or py-spy's
// "F (X:N)" lines), reduced to what hang reasoning needs: where the user's code waits, and whether it waits
// inside a collective (a torch.distributed call, a CUDA synchronize or a Work.wait) or somewhere else. Pure.
#pragma once
#include <string>
#include <vector>

namespace dd::launch {

struct StackFrame {
  std::string func, file;
  int line = 0;
};

struct StackSummary {
  std::vector<StackFrame> frames;  // the main thread's (the first thread with frames), innermost first
  std::string user_at;             // innermost frame outside site-packages/the stdlib: "train.py:75 in <module>"
  std::string user_func;           // its file and function: "train.py:<module>"
  std::string innermost;           // "sleep" or "synchronize (torch/cuda/__init__.py:1162)"
  bool in_collective = false;      // a torch.distributed, CUDA synchronize or wait frame is on the stack
  bool empty() const { return frames.empty(); }
  // Where it waits, without line numbers: the user's function and the innermost one ("step > all_reduce").
  std::string place() const;
};

StackSummary summarize_stack(const std::string& text);

}  // namespace dd::launch
