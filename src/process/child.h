// Child processes with a deadline: code that may hang or crash (NVML, cuInit, dlopen of an unknown libnccl,
// name resolution) runs in a forked child that writes its answer to a pipe. Children run in parallel while
// the parent does other work; wait() collects every answer, killing children that pass their deadline.
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "common/result.h"

namespace dd::process {

using ChildFn = std::function<std::string()>;  // runs in the child; its return value is the answer

class Children {
 public:
  // keep_stderr: the children's stderr stays the caller's (DISTDOCTOR_PROBE_TIMING: their own phase times).
  explicit Children(bool keep_stderr = false) : keep_stderr_(keep_stderr) {}
  ~Children();  // kills and reaps anything not waited for
  Children(const Children&) = delete;
  Children& operator=(const Children&) = delete;

  // Forks now; the child's stdout (and stderr unless keep_stderr) go to /dev/null. Returns the slot of its
  // answer in wait().
  size_t start(const ChildFn& fn, int deadline_ms);

  // Answers in start() order: the child's text, or an error ("timed out after N ms", "crashed: signal 11
  // (Segmentation fault)", "exited with status N", "fork: ...").
  std::vector<Result<std::string>> wait();

  // Wall time of each child from start() to its answer (or deadline), in start() order, after wait().
  const std::vector<int64_t>& elapsed_ms() const { return elapsed_; }

 private:
  struct Kid {
    pid_t pid = -1;
    int fd = -1;
    int64_t started = 0;  // CLOCK_MONOTONIC ms
    int64_t finished = 0;
    int64_t deadline = 0;
    int deadline_ms = 0;
    std::string out;
    bool eof = false;
    std::string start_error;
  };
  std::vector<Kid> kids_;
  std::vector<int64_t> elapsed_;
  bool keep_stderr_ = false;
};

// Convenience: start all, wait for all, one deadline each.
std::vector<Result<std::string>> run_children(const std::vector<ChildFn>& fns, int deadline_ms);

}  // namespace dd::process
