// RunDir: the private directory of one collective run (plan, store, worker and NCCL logs) under the
// temporary directory ($TMPDIR, else /tmp), removed when the run ends on every path unless asked to keep it.
#pragma once
#include <string>

#include "common/result.h"

namespace dd::comm {

class RunDir {
 public:
  // mkdtemp of "<tmp>/distdoctor-comm-XXXXXX"; keep: leave it behind for debugging (DD_KEEP_TMP).
  static Result<RunDir> create(bool keep);
  RunDir(RunDir&& other) noexcept;
  RunDir& operator=(RunDir&&) = delete;
  RunDir(const RunDir&) = delete;
  ~RunDir();
  const std::string& path() const { return path_; }

 private:
  RunDir(std::string path, bool keep) : path_(std::move(path)), keep_(keep) {}
  std::string path_;
  bool keep_ = false;
};

}  // namespace dd::comm
