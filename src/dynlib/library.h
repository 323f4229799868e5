// Library: one dlopen'ed shared library (NVML, libcuda, NCCL) found by versioned sonames or an env override,
// with symbol lookup that tries versioned names first (nvmlInit_v2, then nvmlInit) and clear error strings.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "common/result.h"

namespace dd::dynlib {

// A file the user named instead of the loader's search (empty path: none), and where it was named
// ("DISTDOCTOR_NVML_LIB"), for error messages.
struct PathOverride {
  std::string path;
  std::string source;
};

class Library {
 public:
  Library() = default;
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  Library(Library&& o) noexcept;
  Library& operator=(Library&& o) noexcept;

  // Opens the first of `names` that loads; when env var `env_override` is set and non-empty, only that path.
  // The error names every attempt and dlerror()'s text for each.
  static Result<Library> open(const std::vector<std::string>& names, const char* env_override = nullptr);
  // The same with the override already read (distdoctor's own settings come from probe/tool_env.h).
  static Result<Library> open(const std::vector<std::string>& names, const PathOverride& override_path);

  // Address of the first symbol in `names` that exists, or nullptr. `found` receives the name used.
  void* sym(std::initializer_list<const char*> names, std::string* found = nullptr) const;

  template <typename F>
  F fn(std::initializer_list<const char*> names) const {
    return reinterpret_cast<F>(sym(names));
  }

  bool loaded() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }  // file the loader actually mapped

 private:
  void* handle_ = nullptr;
  std::string path_;
};

// The real path the dynamic loader mapped for an open handle ("" when unknown).
std::string loaded_path(void* handle);

}  // namespace dd::dynlib
