// NCCL's own settings on this node: the environment first, then NCCL_CONF_FILE or ~/.nccl.conf, then
// /etc/nccl.conf, as NCCL's initEnv does (declared in nccl_probe.h).
#include <algorithm>

#include "probe/nccl_probe.h"

namespace dd::probe {

std::vector<std::pair<std::string, std::string>> parse_nccl_conf(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string key = line.substr(0, std::min<size_t>(eq, 1023));
    bool dup = false;
    for (const auto& kv : out) dup = dup || kv.first == key;
    if (!dup) out.emplace_back(key, line.substr(eq + 1, 1023));
  }
  return out;
}

std::map<std::string, EnvSetting> nccl_settings(const Fs& fs, const EnvMap& env,
                                                std::vector<std::string>* errors) {
  std::map<std::string, EnvSetting> out;
  for (const auto& [k, v] : env)
    if (k.rfind("NCCL_", 0) == 0) out[k] = EnvSetting{v, "env"};
  std::vector<std::string> files;
  std::string user = env_get(env, "NCCL_CONF_FILE");
  if (!user.empty())
    files.push_back(user);
  else if (std::string home = env_get(env, "HOME"); !home.empty())
    files.push_back(home + "/.nccl.conf");
  files.push_back("/etc/nccl.conf");
  for (const auto& file : files) {
    if (!fs.exists(file)) continue;
    auto text = fs.read(file);
    if (!text) {
      if (errors) errors->push_back("nccl: " + text.error().message());
      continue;
    }
    for (const auto& [k, v] : parse_nccl_conf(*text))
      if (k.rfind("NCCL_", 0) == 0 && !out.count(k)) out[k] = EnvSetting{v, file};
  }
  return out;
}

}  // namespace dd::probe
