// PATH search with stat + access(X_OK), as execvp does it.
#include "probe/path_lookup.h"

#include <sys/stat.h>
#include <unistd.h>

namespace dd::probe {
namespace {

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string find_on_path(const std::string& name, const std::string& path_env) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return is_executable_file(name) ? name : "";
  size_t begin = 0;
  while (begin <= path_env.size()) {
    size_t end = path_env.find(':', begin);
    if (end == std::string::npos) end = path_env.size();
    if (end > begin) {
      std::string dir = path_env.substr(begin, end - begin);
      std::string candidate = dir.back() == '/' ? dir + name : dir + "/" + name;
      if (is_executable_file(candidate)) return candidate;
    }
    begin = end + 1;
  }
  return "";
}

}  // namespace dd::probe
