// MemFs: an Fs (probe/fs.h) held in memory, for tests of code that reads, lists and writes files: a store's
// keys, a run's folders, a line appended to a log. Paths are absolute ("/run/a"); "/" is there from the
// start; a write needs its parent folder, as on a disk. Thread-safe (a store's ranks are threads).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "probe/fs.h"

namespace dd::probe {

class MemFs : public Fs {
 public:
  MemFs();
  // Test set-up: a regular file (its folders made as needed), a folder, a symbolic link.
  void put(const std::string& path, const std::string& content, mode_t mode = 0644);
  void put_dir(const std::string& path);
  void put_link(const std::string& path, const std::string& target);

  Result<std::string> read(const std::string& path) const override;
  Result<FileText> read_capped(const std::string& path, uint64_t max_bytes) const override;
  Result<std::vector<std::string>> list(const std::string& dir) const override;
  bool exists(const std::string& path) const override;
  Result<std::string> readlink(const std::string& path) const override;
  Result<std::string> realpath(const std::string& path) const override;
  bool is_dir(const std::string& path) const override;
  Result<FileInfo> stat(const std::string& path) const override;
  Status can_add_to(const std::string& dir) const override;  // any folder there
  Result<std::string> write_target(const std::string& path, Symlinks symlinks) const override;

  Status write_atomically(const std::string& path, std::string_view content,
                          const AtomicWriteOptions& o = {}) override;
  Status append(const std::string& path, std::string_view text, const AppendOptions& o = {}) override;
  Status make_dir(const std::string& path, mode_t mode, bool own = false) override;
  Status make_new_dir(const std::string& path, mode_t mode) override;
  Status remove(const std::string& path) override;
  Status remove_tree(const std::string& path) override;
  Result<std::string> make_temp_dir(const std::string& prefix) override;
  Result<std::string> write_temp_file(const std::string& prefix, std::string_view content) override;
  Status make_fifo(const std::string& path, mode_t mode) override;
  Status write_fifo(const std::string& path, std::string_view bytes) override;  // kept as the FIFO's content
  Result<FileLock> lock(const std::string& path) override;

 private:
  struct Node {
    FileKind kind = FileKind::regular;
    std::string content;  // a file's bytes, a FIFO's bytes written, a link's target
    mode_t mode = 0644;
    double mtime = 0;
  };
  const Node* find(const std::string& path) const;  // links followed; nullptr when none
  Status can_write(const std::string& path) const;  // the parent is a folder, the path free or a file
  double tick() { return ++clock_; }

  mutable std::mutex mu_;
  std::map<std::string, Node> nodes_;
  std::map<std::string, std::unique_ptr<std::mutex>> locks_;
  double clock_ = 1e9;  // mtimes: each change one second after the one before
  int temp_serial_ = 0;
};

}  // namespace dd::probe
