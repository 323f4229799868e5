// Fs: the one seam between distdoctor and the filesystem, for reads (sysfs, /proc, logs, a store's keys),
// listings and writes (a key file, a run's folders, a line appended to a log), the way ninja's DiskInterface
// covers both. Only probe/ and dynlib/ touch files themselves (scripts/layers.py); every other folder takes
// an Fs: make_real_fs() on the machine, a MemFs (probe/mem_fs.h) or a recorded tree in tests.
#pragma once
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/atomic_file.h"  // AtomicWriteOptions, Symlinks
#include "common/result.h"
#include "probe/regular_file.h"

namespace dd::probe {

enum class FileKind { none, regular, directory, symlink, fifo, other };

// What stat(2) says of a path (links followed). kind none: nothing there (the call still succeeds).
struct FileInfo {
  FileKind kind = FileKind::none;
  uint64_t size = 0;
  double mtime = -1;  // epoch seconds of the last change, nanoseconds kept; -1 when nothing is there
  mode_t mode = 0;    // permission bits (07777)
};

struct AppendOptions {
  bool create = false;    // create the file (mode) when absent; else a missing file is a not_found Error
  bool own_line = false;  // start on a line of its own: a newline first when the file does not end in one
  mode_t mode = 0644;
};

// Held while a lock file is locked (flock LOCK_EX on the real filesystem); released when destroyed.
class FileLock {
 public:
  explicit FileLock(std::function<void()> release) : release_(std::move(release)) {}
  FileLock(FileLock&& o) noexcept : release_(std::move(o.release_)) { o.release_ = nullptr; }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock() {
    if (release_) release_();
  }

 private:
  std::function<void()> release_;
};

class Fs {
 public:
  virtual ~Fs() = default;
  // --- reads and listings
  virtual Result<std::string> read(const std::string& path) const = 0;  // whole file (up to kMaxConfigBytes)
  // At most max_bytes of a regular file, saying when it cut; FIFOs, devices and directories are refused.
  virtual Result<FileText> read_capped(const std::string& path, uint64_t max_bytes) const = 0;
  virtual Result<std::vector<std::string>> list(const std::string& dir) const = 0;  // names, sorted, no . ..
  virtual bool exists(const std::string& path) const = 0;
  virtual Result<std::string> readlink(const std::string& path) const = 0;  // target of a symlink
  virtual Result<std::string> realpath(const std::string& path) const = 0;  // canonical path, under the root
  virtual bool is_dir(const std::string& path) const = 0;
  virtual Result<FileInfo> stat(const std::string& path) const = 0;  // kind none when nothing is there
  // May this user make a file in the folder (access W_OK|X_OK)? The Error carries the errno.
  virtual Status can_add_to(const std::string& dir) const = 0;
  // The path a write at `path` replaces: itself, or a followed link's regular target; an Error when a
  // device, FIFO, socket or folder is there (common/write_target.h).
  virtual Result<std::string> write_target(const std::string& path, Symlinks symlinks) const = 0;
  // --- writes. Every error names the path ("cannot write PATH: why", "cannot create the folder PATH: why").
  // Creates or replaces a whole file: readers see the old content or the new (common/atomic_file.h).
  virtual Status write_atomically(const std::string& path, std::string_view content,
                                  const AtomicWriteOptions& o = {}) = 0;
  // Appends to a regular file, never through a symbolic link nor into a FIFO or device (what is there is
  // looked at before it is opened, so a device is never opened); the text goes in one write.
  virtual Status append(const std::string& path, std::string_view text, const AppendOptions& o = {}) = 0;
  // Makes a folder whose parent exists; one already there is fine when it is a folder. own: it must be a real
  // folder owned by this user and gets `mode` whatever the umask (common/own_dir.h); else mkdir(path, mode).
  virtual Status make_dir(const std::string& path, mode_t mode, bool own = false) = 0;
  // Makes a folder that is not there yet, as a claim: of two makers (processes, nodes on a shared
  // filesystem) exactly one succeeds (mkdir(2), the umask applies). Anything already there, a folder too, is
  // an Error with err EEXIST; its message is "cannot create the folder PATH".
  virtual Status make_new_dir(const std::string& path, mode_t mode) = 0;
  virtual Status remove(const std::string& path) = 0;       // a file or an empty folder; none there is fine
  virtual Status remove_tree(const std::string& path) = 0;  // a folder and all under it; none there is fine
  // A new private (0700) folder under the temporary directory ($TMPDIR, else /tmp): "<tmp>/<prefix>XXXXXX".
  virtual Result<std::string> make_temp_dir(const std::string& prefix) = 0;
  // A new 0600 file under the temporary directory holding content; its path.
  virtual Result<std::string> write_temp_file(const std::string& prefix, std::string_view content) = 0;
  virtual Status make_fifo(const std::string& path, mode_t mode) = 0;  // replaces a file already there
  // Writes bytes into a FIFO without blocking; a not_found Error when nobody reads it (ENXIO) or it is gone.
  virtual Status write_fifo(const std::string& path, std::string_view bytes) = 0;
  // Waits for the exclusive lock of a lock file (created, mode 0600, never through a link).
  virtual Result<FileLock> lock(const std::string& path) = 0;
};

// The real filesystem, optionally under a root prefix ("" = "/"): RealFs("/tmp/rec") reads /tmp/rec/sys/...
std::unique_ptr<Fs> make_real_fs(std::string root = "");

// The real filesystem at "/", one for the process: for code that is not handed an Fs (a default argument).
Fs& local_fs();

// Reads a file and trims trailing whitespace/newline; error if unreadable.
Result<std::string> read_trimmed(const Fs& fs, const std::string& path);

// Makes dir and every missing folder above it (mkdir -p, mode for each); fine when it is there already.
Status make_dirs(Fs& fs, const std::string& dir, mode_t mode = 0755);

struct WalkOptions {
  bool skip_hidden = true;  // leave out entries whose name starts with '.', and all under such a folder
};

// Every regular file under dir, recursively, as "dir/sub/name", sorted (links followed, 40 folders deep at
// most, so a link to a folder above cannot loop; a folder below that cannot be listed is skipped). An Error
// only when dir itself cannot be listed.
Result<std::vector<std::string>> files_under(const Fs& fs, const std::string& dir, const WalkOptions& o = {});

}  // namespace dd::probe
