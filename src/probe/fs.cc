// Real filesystem behind the Fs seam, with an optional root prefix for recorded trees (reads here, writes in
// file_writes.cc), and the helpers every Fs shares: read_trimmed, make_dirs, files_under.
#include "probe/fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "probe/file_writes.h"

namespace dd::probe {
namespace {

class RealFs : public Fs {
 public:
  explicit RealFs(std::string root) : root_(std::move(root)) {}

  // Regular files only (sysfs and /proc files are regular): a FIFO or device never blocks a probe.
  Result<std::string> read(const std::string& path) const override {
    auto r = read_capped(path, kMaxConfigBytes);  // never slurp something huge by mistake
    if (!r) return r.error();
    return std::move(r->text);
  }

  Result<FileText> read_capped(const std::string& path, uint64_t max_bytes) const override {
    ReadLimits limits;
    limits.max_bytes = max_bytes;
    auto r = read_regular_file(root_ + path, limits);
    if (r || root_.empty()) return r;
    Error e = r.error();  // name the path as the probes know it, without the recorded tree's root
    if (size_t at = e.what.find(root_); at != std::string::npos) e.what.erase(at, root_.size());
    return e;
  }

  Result<std::vector<std::string>> list(const std::string& dir) const override {
    DIR* d = opendir((root_ + dir).c_str());
    if (!d) return Error::from_errno("opendir " + dir);
    std::vector<std::string> out;
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    closedir(d);
    std::sort(out.begin(), out.end());
    return out;
  }

  bool exists(const std::string& path) const override {
    struct stat st;
    return ::stat((root_ + path).c_str(), &st) == 0;
  }

  Result<std::string> realpath(const std::string& path) const override {
    char buf[PATH_MAX];
    if (!::realpath((root_ + path).c_str(), buf)) return Error::from_errno("realpath " + path);
    std::string r = buf;
    if (root_.empty()) return r;
    char rootbuf[PATH_MAX];
    const char* rr = ::realpath(root_.c_str(), rootbuf) ? rootbuf : root_.c_str();
    const size_t n = std::strlen(rr);
    if (r.size() >= n && std::strncmp(r.c_str(), rr, n) == 0) r = std::string(r.c_str() + n);
    if (r.empty()) return std::string(1, '/');
    return r;
  }

  bool is_dir(const std::string& path) const override {
    struct stat st;
    return ::stat((root_ + path).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }

  Result<std::string> readlink(const std::string& path) const override {
    char buf[4096];
    ssize_t n = ::readlink((root_ + path).c_str(), buf, sizeof(buf) - 1);
    if (n < 0) return Error::from_errno("readlink " + path);
    return std::string(buf, static_cast<size_t>(n));
  }

  Result<FileInfo> stat(const std::string& path) const override { return stat_path(root_ + path); }
  Status can_add_to(const std::string& dir) const override {
    if (::access((root_ + dir).c_str(), W_OK | X_OK) == 0) return Ok{};
    return Error::from_errno("cannot add a file to " + dir);
  }
  Result<std::string> write_target(const std::string& path, Symlinks symlinks) const override {
    return unrooted(dd::write_target(root_ + path, symlinks));
  }

  Status write_atomically(const std::string& path, std::string_view content,
                          const AtomicWriteOptions& o) override {
    return write_file_atomically(root_ + path, content, o);
  }
  Status append(const std::string& path, std::string_view text, const AppendOptions& o) override {
    return append_to_file(root_ + path, text, o);
  }
  Status make_dir(const std::string& path, mode_t mode, bool own) override {
    return make_folder(root_ + path, mode, own);
  }
  Status make_new_dir(const std::string& path, mode_t mode) override {
    return make_new_folder(root_ + path, mode, path);
  }
  Status remove(const std::string& path) override { return remove_path(root_ + path); }
  Status remove_tree(const std::string& path) override { return remove_path_tree(root_ + path); }
  Result<std::string> make_temp_dir(const std::string& prefix) override {
    return unrooted(make_temp_folder(root_ + temp_root(), prefix));
  }
  Result<std::string> write_temp_file(const std::string& prefix, std::string_view content) override {
    return unrooted(write_temp(root_ + temp_root(), prefix, content));
  }
  Status make_fifo(const std::string& path, mode_t mode) override { return make_fifo_at(root_ + path, mode); }
  Status write_fifo(const std::string& path, std::string_view bytes) override {
    return write_to_fifo(root_ + path, bytes);
  }
  Result<FileLock> lock(const std::string& path) override { return lock_path(root_ + path); }

 private:
  // A path made under the root, as the caller names it (without the root).
  Result<std::string> unrooted(Result<std::string> made) const {
    if (made && !root_.empty() && made->starts_with(root_)) return made->substr(root_.size());
    return made;
  }
  std::string root_;
};

}  // namespace

std::unique_ptr<Fs> make_real_fs(std::string root) { return std::make_unique<RealFs>(std::move(root)); }

Fs& local_fs() {
  static RealFs fs("");
  return fs;
}

Result<std::string> read_trimmed(const Fs& fs, const std::string& path) {
  auto r = fs.read(path);
  if (!r) return r;
  std::string s = std::move(*r);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.pop_back();
  return s;
}

Status make_dirs(Fs& fs, const std::string& dir, mode_t mode) {
  if (dir.empty() || fs.is_dir(dir)) return Ok{};
  const size_t cut = dir.find_last_of('/');
  if (cut != std::string::npos && cut > 0)
    if (auto up = make_dirs(fs, dir.substr(0, cut), mode); !up) return up;
  return fs.make_dir(dir, mode);
}

namespace {
constexpr int kMaxWalkDepth =
    40;  // a link to a folder above it would loop: stop where the kernel's ELOOP does

void walk(const Fs& fs, const std::string& dir, const WalkOptions& o, int depth,
          std::vector<std::string>& out) {
  auto names = fs.list(dir);
  if (!names || depth > kMaxWalkDepth) return;
  for (const std::string& n : *names) {
    if (o.skip_hidden && n.starts_with(".")) continue;
    const std::string path = dir + "/" + n;
    auto info = fs.stat(path);
    if (!info) continue;
    if (info->kind == FileKind::regular) out.push_back(path);
    if (info->kind == FileKind::directory) walk(fs, path, o, depth + 1, out);
  }
}
}  // namespace

Result<std::vector<std::string>> files_under(const Fs& fs, const std::string& dir, const WalkOptions& o) {
  if (auto top = fs.list(dir); !top) return top.error();
  std::vector<std::string> out;
  walk(fs, dir, o, 0, out);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace dd::probe
