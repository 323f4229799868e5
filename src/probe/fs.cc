// Real filesystem behind the Fs seam, with an optional root prefix for recorded trees.
#include "probe/fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

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

 private:
  std::string root_;
};

}  // namespace

std::unique_ptr<Fs> make_real_fs(std::string root) { return std::make_unique<RealFs>(std::move(root)); }

Result<std::string> read_trimmed(const Fs& fs, const std::string& path) {
  auto r = fs.read(path);
  if (!r) return r;
  std::string s = std::move(*r);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.pop_back();
  return s;
}

}  // namespace dd::probe
