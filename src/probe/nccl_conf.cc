// NCCL's own settings on this node: the environment first, then NCCL_CONF_FILE or ~/.nccl.conf, then
// /etc/nccl.conf, as NCCL's initEnv does (declared in nccl_probe.h). Linear in the file's size; the files
// are opened as regular files only (a FIFO or device there is reported, never read) and capped.
#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "common/redact.h"
#include "probe/nccl_probe.h"

namespace dd::probe {

std::vector<std::pair<std::string, std::string>> parse_nccl_conf(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::unordered_set<std::string_view> seen;  // views into text: keys already defined (first wins)
  const std::string_view all(text);
  size_t pos = 0;
  while (pos < all.size()) {
    size_t nl = all.find('\n', pos);
    std::string_view line = all.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? all.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string_view key = line.substr(0, std::min<size_t>(eq, 1023));
    if (seen.insert(key).second) out.emplace_back(std::string(key), std::string(line.substr(eq + 1, 1023)));
  }
  return out;
}

std::map<std::string, EnvSetting> nccl_settings(const Fs& fs, const EnvMap& env,
                                                std::vector<std::string>* errors) {
  std::map<std::string, EnvSetting> out;
  for (const auto& [k, v] : env)
    if (k.rfind("NCCL_", 0) == 0) out[k] = EnvSetting{redact_value(k, v), "env"};
  std::vector<std::string> files;
  std::string user = env_get(env, "NCCL_CONF_FILE");
  if (!user.empty())
    files.push_back(user);
  else if (std::string home = env_get(env, "HOME"); !home.empty())
    files.push_back(home + "/.nccl.conf");
  files.push_back("/etc/nccl.conf");
  for (const auto& file : files) {
    if (!fs.exists(file)) continue;
    auto text = fs.read_capped(file, kMaxConfigBytes);
    if (!text) {
      if (errors) errors->push_back("nccl: " + text.error().message());
      continue;
    }
    if (text->truncated && errors)
      errors->push_back(fmt::format("nccl: {} is larger than {} MiB; only its first {} MiB were read", file,
                                    kMaxConfigBytes >> 20, kMaxConfigBytes >> 20));
    for (const auto& [k, v] : parse_nccl_conf(text->text))
      if (k.rfind("NCCL_", 0) == 0 && !out.count(k)) out[k] = EnvSetting{redact_value(k, v), file};
  }
  return out;
}

}  // namespace dd::probe
