// Real filesystem behind the Fs seam, with an optional root prefix for recorded trees.
#include "probe/fs.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace dd::probe {
namespace {

class RealFs : public Fs {
 public:
  explicit RealFs(std::string root) : root_(std::move(root)) {}

  Result<std::string> read(const std::string& path) const override {
    std::ifstream in(root_ + path, std::ios::binary);
    if (!in) return Error::from_errno("read " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return Error::from_errno("read " + path);
    return ss.str();
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
    if (!root_.empty()) {
      char rootbuf[PATH_MAX];
      std::string rr = ::realpath(root_.c_str(), rootbuf) ? rootbuf : root_;
      if (r.compare(0, rr.size(), rr) == 0) r = r.substr(rr.size());
      if (r.empty()) r = "/";
    }
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
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace dd::probe
