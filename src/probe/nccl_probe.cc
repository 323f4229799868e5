// NCCL library discovery, ld.so cache scan, and the child-process version query (settings: nccl_conf.cc).
#include "probe/nccl_probe.h"

#include <algorithm>
#include <set>

#include "common/safe_text.h"
#include "dynlib/library.h"
#include "dynlib/nccl.h"
#include "common/json_limits.h"

namespace dd::probe {
namespace {

constexpr const char* kSoname = "libnccl.so.2";

std::vector<std::string> split(const std::string& s, const std::string& seps) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (seps.find(c) != std::string::npos) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Entries of `dir` whose name starts with `prefix` (as full paths).
std::vector<std::string> glob_prefix(const Fs& fs, const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  auto names = fs.list(dir);
  if (!names) return out;
  for (const auto& n : *names)
    if (n.rfind(prefix, 0) == 0) out.push_back(dir + "/" + n);
  return out;
}

class Collector {
 public:
  explicit Collector(const Fs& fs) : fs_(fs) {}
  void add_file(const std::string& path, const std::string& source) {
    if (path.empty() || !fs_.exists(path) || fs_.is_dir(path)) return;
    auto real = fs_.realpath(path);
    std::string key = real ? *real : path;
    if (!seen_.insert(key).second) return;
    out_.push_back({key, source});
  }
  void add_dir(const std::string& dir, const std::string& source) { add_file(dir + "/" + kSoname, source); }
  std::vector<NcclCandidate> take() { return std::move(out_); }

 private:
  const Fs& fs_;
  std::set<std::string> seen_;
  std::vector<NcclCandidate> out_;
};

}  // namespace

std::vector<std::string> python_prefixes_on_path(const Fs& fs, const EnvMap& env) {
  std::vector<std::string> out;
  for (auto dir : split(env_get(env, "PATH"), ":")) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    auto names = fs.list(dir);
    if (!names) continue;
    bool has_python = false;
    for (const auto& n : *names)
      if ((n == "python" || n.rfind("python3", 0) == 0) && n.find("-config") == std::string::npos &&
          !fs.is_dir(dir + "/" + n))
        has_python = true;
    if (!has_python) continue;
    auto slash = dir.rfind('/');
    std::string prefix = slash == std::string::npos || slash == 0 ? "" : dir.substr(0, slash);
    if (prefix.empty() || std::find(out.begin(), out.end(), prefix) != out.end()) continue;
    out.push_back(prefix);
  }
  return out;
}

std::string infer_loader_choice(const Fs& fs, const EnvMap& env) {
  std::vector<std::string> tries;
  for (const auto& d : split(env_get(env, "LD_LIBRARY_PATH"), ":;")) tries.push_back(d + "/" + kSoname);
  if (auto cache = fs.read("/etc/ld.so.cache"))
    for (const auto& p : parse_ld_so_cache(*cache, kSoname)) tries.push_back(p);
  for (const char* d : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"})
    tries.push_back(std::string(d) + "/" + kSoname);
  for (const auto& t : tries)
    if (fs.exists(t) && !fs.is_dir(t)) {
      auto r = fs.realpath(t);
      return r ? *r : t;
    }
  return "";
}

std::vector<std::string> parse_ld_so_cache(const std::string& bytes, const std::string& soname) {
  std::vector<std::string> out;
  const std::string tail = "/" + soname;
  size_t start = 0;
  while (start < bytes.size()) {
    size_t end = bytes.find('\0', start);
    if (end == std::string::npos) end = bytes.size();
    if (bytes[start] == '/' && end - start > tail.size() &&
        bytes.compare(end - tail.size(), tail.size(), tail) == 0) {
      std::string p = bytes.substr(start, end - start);
      bool dup = false;
      for (const auto& o : out) dup = dup || o == p;
      if (!dup) out.push_back(p);
    }
    start = end + 1;
  }
  return out;
}

namespace {

// Lib dirs that may hold python3*/site-packages, with the source label for what is found there. Python
// frameworks ship NCCL as the nvidia-nccl-cu* wheel: <site>/nvidia/nccl/lib/libnccl.so.2.
std::vector<std::pair<std::string, std::string>> python_lib_dirs(const Fs& fs, const EnvMap& env) {
  std::vector<std::string> lib_dirs = {"/usr/lib", "/usr/local/lib", "/opt/conda/lib"};
  std::string home = env_get(env, "HOME");
  if (!home.empty()) lib_dirs.push_back(home + "/.local/lib");
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    std::string v = env_get(env, var);
    if (!v.empty()) lib_dirs.push_back(v + "/lib");
  }
  std::string pyenv = env_get(env, "PYENV_ROOT");
  if (pyenv.empty() && !home.empty()) pyenv = home + "/.pyenv";
  if (!pyenv.empty())
    for (const auto& v : glob_prefix(fs, pyenv + "/versions", "")) lib_dirs.push_back(v + "/lib");
  std::vector<std::pair<std::string, std::string>> sites;  // (lib dir holding python3*, source label)
  for (const auto& ld : lib_dirs) sites.emplace_back(ld, "site-packages");
  // The python a job would run: every PATH dir holding python3*/python; its prefix is the dir's parent
  // (a venv's bin/python3 is often a symlink out of the venv, so the PATH dir, not the target, decides).
  for (const auto& d : python_prefixes_on_path(fs, env))
    sites.emplace_back(d + "/lib", "site-packages (python on PATH)");
  // Common virtualenv and conda roots, one directory level of globbing only.
  sites.emplace_back("/opt/venv/lib", "site-packages (venv)");  // /opt/conda/lib is in lib_dirs
  for (const auto& opt : glob_prefix(fs, "/opt", ""))
    for (const char* v : {"/.venv", "/venv"}) sites.emplace_back(opt + v + "/lib", "site-packages (venv)");
  return sites;
}

}  // namespace

std::vector<NcclCandidate> find_nccl_candidates(const Fs& fs, const EnvMap& env,
                                                const std::string& nccl_lib) {
  Collector c(fs);
  if (!nccl_lib.empty()) {
    if (fs.is_dir(nccl_lib))
      c.add_dir(nccl_lib, "--nccl-lib");
    else
      c.add_file(nccl_lib, "--nccl-lib");
  }
  for (const auto& d : split(env_get(env, "LD_LIBRARY_PATH"), ":;")) c.add_dir(d, "LD_LIBRARY_PATH");
  for (const auto& root : glob_prefix(fs, "/usr/local", "cuda")) {
    c.add_dir(root + "/lib64", "cuda");
    c.add_dir(root + "/lib", "cuda");
    for (const auto& t : glob_prefix(fs, root + "/targets", "")) c.add_dir(t + "/lib", "cuda");
  }
  if (auto cache = fs.read("/etc/ld.so.cache"))
    for (const auto& p : parse_ld_so_cache(*cache, kSoname)) c.add_file(p, "system");
  for (const char* d :
       {"/lib", "/usr/lib", "/lib64", "/usr/lib64", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
        "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/local/lib"})
    c.add_dir(d, "system");

  for (const auto& [ld, label] : python_lib_dirs(fs, env))
    for (const auto& py : glob_prefix(fs, ld, "python3"))
      for (const char* sp : {"/site-packages", "/dist-packages"}) {
        c.add_dir(py + sp + "/nvidia/nccl/lib", label);
        c.add_dir(py + sp + "/torch/lib", label);
      }
  for (const auto& d : split(env_get(env, "PYTHONPATH"), ":"))
    c.add_dir(d + "/nvidia/nccl/lib", "PYTHONPATH");
  std::string conda = env_get(env, "CONDA_PREFIX");
  if (!conda.empty()) c.add_dir(conda + "/lib", "conda");
  c.add_dir("/opt/conda/lib", "conda");
  return c.take();
}

std::string nccl_version_child(const std::string& path) {
  auto v = dynlib::nccl_get_version(path);
  nlohmann::json j;
  j["path"] = path;
  if (v)
    j["version_code"] = *v;
  else
    j["error"] = v.error().message();
  return json_text(j);
}

std::string nccl_loader_child() {
  nlohmann::json j;
  auto lib = dynlib::Library::open({kSoname});
  if (!lib) {
    j["error"] = lib.error().message();
    return json_text(j);
  }
  j["path"] = lib->path();
  using Fn = int (*)(int*);
  int v = 0;
  if (auto fn = lib->fn<Fn>({"ncclGetVersion"}); fn && fn(&v) == 0)
    j["version_code"] = v;
  else
    j["error"] = "ncclGetVersion missing or failed";
  return json_text(j);
}

void apply_nccl_answer(const Result<std::string>& answer, NcclLib& lib) {
  if (!answer) {
    lib.error =
        "loading " + (lib.path.empty() ? std::string(kSoname) : lib.path) + ": " + answer.error().message();
    return;
  }
  try {
    auto j = dd::parse_json(*answer);
    if (lib.path.empty()) lib.path = j.value("path", "");
    lib.version_code = j.value("version_code", -1);
    lib.version = dynlib::nccl_version_string(lib.version_code);
    lib.error = j.value("error", "");
  } catch (const std::exception& e) {
    lib.error = std::string("unreadable answer from the NCCL child: ") + e.what();
  }
}

}  // namespace dd::probe
