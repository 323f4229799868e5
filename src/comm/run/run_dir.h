// RunDir: the private directory of one collective run (plan, store, worker and NCCL logs) under the
// temporary directory ($TMPDIR, else /tmp), removed when the run ends on every path unless asked to keep it.
// Made and removed through a probe::Fs.
#pragma once
#include <string>

#include "common/result.h"
#include "probe/fs.h"

namespace dd::comm {

class RunDir {
 public:
  // mkdtemp of "<tmp>/distdoctor-comm-XXXXXX"; keep: leave it behind for debugging (DD_KEEP_TMP).
  static Result<RunDir> create(bool keep, probe::Fs& fs = probe::local_fs());
  RunDir(RunDir&& other) noexcept;
  RunDir& operator=(RunDir&&) = delete;
  RunDir(const RunDir&) = delete;
  ~RunDir();
  const std::string& path() const { return path_; }

 private:
  RunDir(std::string path, bool keep, probe::Fs& fs) : path_(std::move(path)), keep_(keep), fs_(&fs) {}
  std::string path_;
  bool keep_ = false;
  probe::Fs* fs_;
};

}  // namespace dd::comm
