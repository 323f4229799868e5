// Flight Recorder variables, the faulthandler hook file and its marker lines (see debug_hooks.h).
#include "launch/debug_hooks.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "probe/regular_file.h"

namespace dd::launch {

namespace {

constexpr const char* kMarker = "# distdoctor: stack hook pid ";
constexpr const char* kRequest = "# distdoctor: stacks requested";

// Each line is Python; the hook must never break the worker, so every step is inside try.
constexpr const char* kSiteCustomize =
    R"PY(# Written by `distdoctor launch` (see its docs/launch.md): lets the launcher ask this worker for every
# thread's Python stack (SIGUSR2 -> faulthandler) without py-spy, then runs the sitecustomize this one hides.
def _distdoctor_hooks():
    import os, sys
    path = os.environ.get("DISTDOCTOR_STACK_FILE")
    if path:
        try:
            import faulthandler, signal
            f = open(path, "a")
            faulthandler.register(signal.SIGUSR2, file=f, all_threads=True, chain=False)
            f.write("# distdoctor: stack hook pid %d\n" % os.getpid())
            f.flush()
            sys._distdoctor_stack_file = f
        except Exception:
            pass
    try:
        import importlib.machinery, importlib.util
        here = os.path.dirname(os.path.abspath(__file__))
        rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
        if spec is not None and spec.loader is not None:
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
    except Exception as e:
        print("distdoctor: your sitecustomize failed: %r" % (e,), file=sys.stderr)
_distdoctor_hooks()
del _distdoctor_hooks
)PY";

const std::string* find_var(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& e : env)
    if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=') return &e;
  return nullptr;
}

std::string value_of(const std::vector<std::string>& env, const std::string& name) {
  const std::string* e = find_var(env, name);
  return e ? e->substr(name.size() + 1) : "";
}

bool user_set_fr(const std::vector<std::string>& env) {
  return find_var(env, "TORCH_FR_BUFFER_SIZE") || find_var(env, "TORCH_NCCL_TRACE_BUFFER_SIZE");
}

bool user_fr_off(const std::vector<std::string>& env) {
  if (!user_set_fr(env)) return false;
  std::string v = value_of(env, "TORCH_FR_BUFFER_SIZE");
  if (v.empty()) v = value_of(env, "TORCH_NCCL_TRACE_BUFFER_SIZE");
  return v.empty() || v == "0";
}

}  // namespace

std::string DebugHookPaths::stack_file(int node_rank, int rank) const {
  return fmt::format("{}/stacks/node{}.rank{}.txt", dir, node_rank, rank);
}

DebugHookPaths debug_hook_paths(const std::string& attempt_dir) {
  return {attempt_dir, attempt_dir + "/flight_recorder/rank", attempt_dir + "/flight_recorder/pipe_",
          attempt_dir + "/.pyhooks"};
}

EnvPairs debug_hook_env(const DebugHookPaths& p, const DebugHookOptions& o, int node_rank, int rank,
                        const std::vector<std::string>& base_env) {
  EnvPairs env;
  if (!o.flight_recorder) return env;
  const auto unset = [&](const char* n) { return !find_var(base_env, n); };
  if (!user_set_fr(base_env)) env.emplace_back("TORCH_FR_BUFFER_SIZE", std::to_string(o.fr_buffer));
  if (!user_fr_off(base_env)) {
    if (unset("TORCH_NCCL_DUMP_ON_TIMEOUT")) env.emplace_back("TORCH_NCCL_DUMP_ON_TIMEOUT", "1");
    if (unset("TORCH_FR_DUMP_TEMP_FILE") && unset("TORCH_NCCL_DEBUG_INFO_TEMP_FILE"))
      env.emplace_back("TORCH_FR_DUMP_TEMP_FILE", p.fr_prefix);
    if (unset("TORCH_NCCL_DEBUG_INFO_PIPE_FILE"))
      env.emplace_back("TORCH_NCCL_DEBUG_INFO_PIPE_FILE", p.pipe_prefix);
  }
  std::string py = value_of(base_env, "PYTHONPATH");
  env.emplace_back("PYTHONPATH", py.empty() ? p.site_dir : p.site_dir + ":" + py);
  env.emplace_back("DISTDOCTOR_STACK_FILE", p.stack_file(node_rank, rank));
  return env;
}

std::string fr_dump_path(const DebugHookPaths& p, const DebugHookOptions& o, int rank,
                         const std::vector<std::string>& base_env) {
  if (user_set_fr(base_env) ? user_fr_off(base_env) : !o.flight_recorder) return "";
  std::string prefix = value_of(base_env, "TORCH_FR_DUMP_TEMP_FILE");
  if (prefix.empty()) prefix = value_of(base_env, "TORCH_NCCL_DEBUG_INFO_TEMP_FILE");
  if (prefix.empty())
    prefix = o.flight_recorder ? p.fr_prefix : "/tmp/nccl_trace_rank_";  // PyTorch's default
  return prefix + std::to_string(rank);
}

std::string fr_pipe_path(const DebugHookPaths& p, const DebugHookOptions& o, int rank,
                         const std::vector<std::string>& base_env) {
  if (!o.flight_recorder || user_fr_off(base_env) || find_var(base_env, "TORCH_NCCL_DEBUG_INFO_PIPE_FILE"))
    return "";
  return p.pipe_prefix + std::to_string(rank) + ".pipe";
}

std::string write_debug_hooks(const DebugHookPaths& p) {
  std::error_code ec;
  for (const std::string& d : {p.site_dir, p.dir + "/flight_recorder", p.dir + "/stacks"}) {
    std::filesystem::create_directories(d, ec);
    if (ec) return d + ": " + ec.message();
  }
  std::ofstream out(p.site_dir + "/sitecustomize.py", std::ios::trunc);
  out << kSiteCustomize;
  out.close();
  if (!out) return p.site_dir + "/sitecustomize.py: could not be written";
  return "";
}

std::vector<int> stack_hook_pids(const std::string& text) {
  std::vector<int> pids;
  const std::string marker = kMarker;
  for (size_t k = text.find(marker); k != std::string::npos; k = text.find(marker, k + 1)) {
    if (k != 0 && text[k - 1] != '\n') continue;
    int pid = 0;
    size_t i = k + marker.size();
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && pid < 100000000)
      pid = pid * 10 + (text[i++] - '0');
    if (pid > 0) pids.push_back(pid);
  }
  return pids;
}

std::string last_stack_dump(const std::string& text) {
  size_t from = 0;
  for (const char* m : {kMarker, kRequest}) {
    size_t k = text.rfind(m);
    if (k != std::string::npos) {
      size_t nl = text.find('\n', k);
      from = std::max(from, nl == std::string::npos ? text.size() : nl + 1);
    }
  }
  return text.substr(from);
}

std::string answered_stack(const std::string& text) {
  std::string dump = last_stack_dump(text);
  return dump.find("(most recent call first)") != std::string::npos ? dump : "";
}

std::string read_stack_file(const std::string& path) {
  probe::ReadLimits lim;
  lim.max_bytes = 4u << 20;
  lim.deadline = std::chrono::milliseconds(500);
  auto t = probe::read_regular_file(path, lim);
  return t ? t->text : "";
}

}  // namespace dd::launch
