// NCCL probe: every libnccl.so.2 a job on this node could load, and every NCCL_* setting in effect
// (environment first, then NCCL_CONF_FILE or ~/.nccl.conf, then /etc/nccl.conf, as NCCL's initEnv does).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "probe/env_probe.h"
#include "probe/facts.h"
#include "probe/fs.h"

namespace dd::probe {

struct NcclCandidate {
  std::string path;  // real path (symlinks resolved), the dedupe key
  // "--nccl-lib", "LD_LIBRARY_PATH", "cuda", "system", "site-packages", "site-packages (python on PATH)",
  // "site-packages (venv)", "conda", "PYTHONPATH"
  std::string source;
};

// Looks in: --nccl-lib, LD_LIBRARY_PATH, /usr/local/cuda*/{lib64,lib,targets/*/lib}, the ld.so cache and the
// standard lib dirs, site-packages/nvidia/nccl/lib of system, user, virtualenv, conda and pyenv Pythons,
// of every Python on PATH (python_prefixes_on_path) and of /opt/venv, /opt/*/{.venv,venv}, PYTHONPATH. Each
// real file once, first source wins.
std::vector<NcclCandidate> find_nccl_candidates(const Fs& fs, const EnvMap& env, const std::string& nccl_lib);

// Prefixes of the Pythons on PATH: for each PATH dir holding a python3* or python entry, the dir's parent
// (/opt/trainenv/.venv/bin -> /opt/trainenv/.venv), each once, in PATH order. A bin dir at "/" is skipped.
std::vector<std::string> python_prefixes_on_path(const Fs& fs, const EnvMap& env);

// Where the dynamic loader would find libnccl.so.2 when asking it is impossible (the library crashed or hung
// while loading): LD_LIBRARY_PATH dirs, then the ld.so cache, then the default dirs. Real path, or "".
std::string infer_loader_choice(const Fs& fs, const EnvMap& env);

// Paths of `soname` listed in /etc/ld.so.cache (either format: it scans the string table).
std::vector<std::string> parse_ld_so_cache(const std::string& bytes, const std::string& soname);

// NCCL's config file syntax (setEnvFile): "NAME=VALUE" per line, '#' lines skipped, nothing trimmed.
// Within one file the first definition wins (setenv without overwrite).
std::vector<std::pair<std::string, std::string>> parse_nccl_conf(const std::string& text);

// Every NCCL_* in effect with where it came from; unreadable config files other than "absent" go to errors.
std::map<std::string, EnvSetting> nccl_settings(const Fs& fs, const EnvMap& env,
                                                std::vector<std::string>* errors);

// Child-side work (runs in a forked child): JSON text {"path":..., "version_code":N} or {"error":...}.
std::string nccl_version_child(const std::string& path);
std::string nccl_loader_child();

// Parent side: fills one NcclLib from a child's answer.
void apply_nccl_answer(const Result<std::string>& answer, NcclLib& lib);

}  // namespace dd::probe
