// read_process_identity and nccl_file_version (see process_identity.h).
#include "probe/process_identity.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <deque>
#include <mutex>
#include <sstream>
#include <tuple>

#include "probe/regular_file.h"

namespace dd::probe {

namespace {

std::string read_proc_text(const std::string& path, uint64_t cap) {
  auto t = read_regular_file(path, ReadLimits{.max_bytes = cap, .deadline = std::chrono::seconds(1)});
  return t ? std::move(t->text) : std::string();
}

// The name a mapped file is compared under, "" for a library of no interest.
std::string library_kind(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (const char* k : {"libnccl.so", "libcudart.so", "libcuda.so"})
    if (base.rfind(k, 0) == 0) return std::string(k, std::strlen(k) - 3);
  return "";
}

std::vector<pid_t> children_of(pid_t pid, const std::string& proc_root) {
  std::vector<pid_t> out;
  std::istringstream in(read_proc_text(
      proc_root + "/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children", 64 << 10));
  for (long c; in >> c;) out.push_back(static_cast<pid_t>(c));
  return out;
}

ProcessIdentity read_one(pid_t pid, const std::string& proc_root) {
  ProcessIdentity id;
  id.pid = pid;
  const std::string dir = proc_root + "/" + std::to_string(pid);
  auto environ = read_regular_file(dir + "/environ", ReadLimits{.max_bytes = 4 << 20, .deadline = std::chrono::seconds(1)});
  id.readable = bool(environ);
  if (environ) id.env = parse_environ(environ->text);
  id.libraries = parse_mapped_libraries(read_proc_text(dir + "/maps", 64 << 20));
  return id;
}

}  // namespace

std::map<std::string, std::string> parse_environ(const std::string& block) {
  std::map<std::string, std::string> env;
  size_t at = 0;
  while (at < block.size()) {
    size_t end = block.find('\0', at);
    if (end == std::string::npos) end = block.size();
    const std::string kv = block.substr(at, end - at);
    const size_t eq = kv.find('=');
    if (eq != std::string::npos && eq > 0) env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
    at = end + 1;
  }
  return env;
}

std::map<std::string, std::string> parse_mapped_libraries(const std::string& maps) {
  std::map<std::string, std::string> libs;
  std::istringstream in(maps);
  for (std::string line; std::getline(in, line);) {
    const size_t slash = line.find('/');  // the path is the last field; it starts at the first '/'
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    if (const size_t del = path.find(" (deleted)"); del != std::string::npos) path.erase(del);
    const std::string kind = library_kind(path);
    if (!kind.empty()) libs.emplace(kind, path);
  }
  return libs;
}

ProcessIdentity read_process_identity(pid_t pid, const std::string& proc_root) {
  ProcessIdentity first = read_one(pid, proc_root);
  if (first.nccl_loaded()) return first;
  std::deque<pid_t> queue;
  for (pid_t c : children_of(pid, proc_root)) queue.push_back(c);
  for (int seen = 0; !queue.empty() && seen < 32; ++seen) {
    const pid_t p = queue.front();
    queue.pop_front();
    ProcessIdentity id = read_one(p, proc_root);
    if (id.nccl_loaded()) return id;
    for (pid_t c : children_of(p, proc_root)) queue.push_back(c);
  }
  return first;
}

std::string nccl_file_version(const std::string& path) {
  static std::mutex mu;
  static std::map<std::tuple<std::string, off_t, time_t>, std::string> known;
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return "";
  const auto key = std::make_tuple(path, st.st_size, st.st_mtime);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  std::string version;
  auto file = open_regular_file(path);
  if (file) {
    const size_t size = static_cast<size_t>(st.st_size);
    void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file->fd(), 0);
    if (m != MAP_FAILED) {
      const char* base = static_cast<const char*>(m);
      static constexpr char kTag[] = "NCCL version ";
      const char* p = base;
      const char* end = base + size;
      // NCCL's VERSION_STRING: "NCCL version 2.28.9+cuda13.0"; other "NCCL version ..." texts are formats.
      while ((p = static_cast<const char*>(memmem(p, end - p, kTag, sizeof kTag - 1))) != nullptr) {
        p += sizeof kTag - 1;
        size_t n = 0;
        while (p + n < end && n < 40 && (std::isalnum(static_cast<unsigned char>(p[n])) || p[n] == '.' || p[n] == '+'))
          ++n;
        if (n >= 5 && std::isdigit(static_cast<unsigned char>(p[0])) && (p + n == end || p[n] == '\0')) {
          version.assign(p, n);
          break;
        }
      }
      ::munmap(m, size);
    }
  }
  std::lock_guard<std::mutex> lock(mu);
  known[key] = version;
  return version;
}

}  // namespace dd::probe
