// Fs: the seam between probes and the filesystem (sysfs, /proc, /etc). Tests hand probes a recorded tree.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "probe/regular_file.h"

namespace dd::probe {

class Fs {
 public:
  virtual ~Fs() = default;
  virtual Result<std::string> read(const std::string& path) const = 0;  // whole file (up to kMaxConfigBytes)
  // At most max_bytes of a regular file, saying when it cut; FIFOs, devices and directories are refused.
  virtual Result<FileText> read_capped(const std::string& path, uint64_t max_bytes) const = 0;
  virtual Result<std::vector<std::string>> list(const std::string& dir) const = 0;  // names, sorted, no . ..
  virtual bool exists(const std::string& path) const = 0;
  virtual Result<std::string> readlink(const std::string& path) const = 0;  // target of a symlink
  virtual Result<std::string> realpath(const std::string& path) const = 0;  // canonical path, under the root
  virtual bool is_dir(const std::string& path) const = 0;
};

// The real filesystem, optionally under a root prefix ("" = "/"): RealFs("/tmp/rec") reads /tmp/rec/sys/...
std::unique_ptr<Fs> make_real_fs(std::string root = "");

// Reads a file and trims trailing whitespace/newline; error if unreadable.
Result<std::string> read_trimmed(const Fs& fs, const std::string& path);

}  // namespace dd::probe
