// The run's private temporary directory: created under the standard temporary path, removed on destruction.
#include "comm/run/run_dir.h"

#include <stdlib.h>

#include <filesystem>
#include <system_error>

namespace dd::comm {

Result<RunDir> RunDir::create(bool keep) {
  std::error_code ec;
  std::filesystem::path root = std::filesystem::temp_directory_path(ec);  // $TMPDIR, else /tmp
  if (ec) root = "/tmp";
  std::string tmpl = (root / "distdoctor-comm-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) return Error::from_errno("cannot create a temporary directory " + tmpl);
  RunDir dir(tmpl, keep);
  std::filesystem::create_directory(tmpl + "/store", ec);
  if (ec) return Error{"cannot create " + tmpl + "/store: " + ec.message(), 0, ErrorKind::io};
  return dir;
}

RunDir::RunDir(RunDir&& other) noexcept : path_(std::move(other.path_)), keep_(other.keep_) {
  other.path_.clear();
}

RunDir::~RunDir() {
  if (path_.empty() || keep_) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace dd::comm
