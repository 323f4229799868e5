// The run's private temporary directory: created under the standard temporary path, removed on destruction.
#include "comm/run/run_dir.h"

namespace dd::comm {

Result<RunDir> RunDir::create(bool keep, probe::Fs& fs) {
  auto made = fs.make_temp_dir("distdoctor-comm-");  // $TMPDIR, else /tmp
  if (!made) return made.error();
  RunDir dir(*made, keep, fs);
  if (auto store = fs.make_dir(*made + "/store", 0777); !store)
    return Error{"cannot create " + *made + "/store: " + store.error().message(), 0, ErrorKind::io};
  return dir;
}

RunDir::RunDir(RunDir&& other) noexcept : path_(std::move(other.path_)), keep_(other.keep_), fs_(other.fs_) {
  other.path_.clear();
}

RunDir::~RunDir() {
  if (path_.empty() || keep_) return;
  (void)fs_->remove_tree(path_);
}

}  // namespace dd::comm
