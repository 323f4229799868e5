// dlopen wrapper: RTLD_LAZY | RTLD_LOCAL, versioned sonames, env override, path via dlinfo(RTLD_DI_LINKMAP).
#include "dynlib/library.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <utility>

namespace dd::dynlib {

Library::~Library() {
  if (handle_) dlclose(handle_);
}

Library::Library(Library&& o) noexcept
    : handle_(std::exchange(o.handle_, nullptr)), path_(std::move(o.path_)) {}

Library& Library::operator=(Library&& o) noexcept {
  if (this != &o) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(o.handle_, nullptr);
    path_ = std::move(o.path_);
  }
  return *this;
}

std::string loaded_path(void* handle) {
  if (!handle) return "";
  link_map* lm = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_name) return "";
  return lm->l_name;
}

Result<Library> Library::open(const std::vector<std::string>& names, const char* env_override) {
  PathOverride over;
  if (env_override) {
    const char* v = std::getenv(env_override);
    if (v && *v) over = {v, env_override};
  }
  return open(names, over);
}

Result<Library> Library::open(const std::vector<std::string>& names, const PathOverride& override_path) {
  std::vector<std::string> tries = names;
  std::string via;
  if (!override_path.path.empty()) {
    tries = {override_path.path};
    via = " (from " + override_path.source + ")";
  }
  std::string errors;
  for (const auto& n : tries) {
    dlerror();
    void* h = dlopen(n.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (h) {
      Library lib;
      lib.handle_ = h;
      lib.path_ = loaded_path(h);
      if (lib.path_.empty()) lib.path_ = n;
      return lib;
    }
    const char* e = dlerror();
    if (!errors.empty()) errors += "; ";
    errors += e ? std::string(e) : "dlopen " + n + " failed";
  }
  return Error{
      "cannot load " + (tries.empty() ? std::string("(nothing)") : tries.front()) + via + ": " + errors, 0};
}

void* Library::sym(std::initializer_list<const char*> names, std::string* found) const {
  if (!handle_) return nullptr;
  for (const char* n : names) {
    dlerror();
    void* p = dlsym(handle_, n);
    if (p) {
      if (found) *found = n;
      return p;
    }
  }
  return nullptr;
}

}  // namespace dd::dynlib
