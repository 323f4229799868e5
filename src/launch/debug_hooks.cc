// Flight Recorder variables, the faulthandler hook file and its marker lines (see debug_hooks.h).
#include "launch/debug_hooks.h"

#include <fmt/format.h>

#include <algorithm>

#include "logs/file_scan.h"
#include "probe/regular_file.h"

namespace dd::launch {

namespace {

constexpr const char* kRequest = "# distdoctor: stacks requested";

// Each line is Python; the hook must never break the worker, so every step is inside try.
constexpr const char* kSiteCustomize =
    R"PY(# Written by `distdoctor launch` (see its docs/launch.md): lets the launcher ask this worker for every
# thread's Python stack (SIGUSR2 -> faulthandler) and for a Flight Recorder dump without py-spy, then runs the
# sitecustomize this one hides.
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
    # The Flight Recorder, for the first Python process of the worker only (the variables are taken out of
    # the environment, so data-loader workers and other children do not answer for it): a byte in the FIFO
    # DISTDOCTOR_FR_REQUEST asks for a dump into DISTDOCTOR_FR_DUMP (a "2", into that path + ".live": launch's
    # periodic snapshot, read and removed at once), and a clean exit writes one into
    # DISTDOCTOR_FR_EXIT. Without Python stacks: quick (PyTorch's own pipe dump symbolizes them for seconds,
    # and a process that exits meanwhile can crash), and the stack hook above gives the stacks.
    req = os.environ.pop("DISTDOCTOR_FR_REQUEST", "")
    dump = os.environ.pop("DISTDOCTOR_FR_DUMP", "")
    at_exit = os.environ.pop("DISTDOCTOR_FR_EXIT", "")
    if req and dump:
        try:
            import atexit, threading
            def dump_of(c10d, name):
                fn = getattr(c10d, name, None)
                if fn is None:
                    return None
                try:
                    return fn(includeCollectives=True, includeStackTraces=False, onlyActive=False)
                except TypeError:
                    return fn()
            def recorded(c10d):
                # NCCL's recorder; PyTorch 2.11 keeps Gloo's collectives in its generic recorder, which only
                # _dump_fr_trace writes: its groups that NCCL's dump lacks are added to it.
                data = dump_of(c10d, "_dump_nccl_trace")
                try:
                    import pickle
                    other = dump_of(c10d, "_dump_fr_trace")
                    more = pickle.loads(other) if other else {}
                    if more.get("entries"):
                        base = pickle.loads(data) if data else {}
                        have = {e.get("pg_id") for e in base.get("entries", [])}
                        extra = [e for e in more["entries"] if e.get("pg_id") not in have]
                        if extra:
                            for key in ("pg_config", "pg_status"):
                                merged = dict(more.get(key, {}))
                                merged.update(base.get(key, {}))
                                base[key] = merged
                            base.setdefault("version", more.get("version", ""))
                            base["entries"] = base.get("entries", []) + extra
                            data = pickle.dumps(base, protocol=2)
                except Exception:
                    pass
                return data
            def write(target):
                c10d = getattr(getattr(sys.modules.get("torch"), "_C", None), "_distributed_c10d", None)
                data = recorded(c10d) if c10d is not None and "torch.distributed" in sys.modules else None
                if data is None:
                    data, target = b"torch.distributed is not in use in this process\n", target + ".none"
                with open(target + ".tmp", "wb") as out:
                    out.write(data)
                os.replace(target + ".tmp", target)
            def serve():
                while True:
                    try:
                        with open(req, "rb") as pipe:
                            asked = pipe.read(1)
                        if asked:  # "2": a snapshot for the live straggler check, apart from a hang's
                            write(dump + ".live" if asked == b"2" else dump)
                    except Exception:
                        return
            threading.Thread(target=serve, name="distdoctor-flight-recorder", daemon=True).start()
            failed = []
            hook = sys.excepthook
            def note_failure(*exc):
                failed.append(1)
                hook(*exc)
            sys.excepthook = note_failure
            def dump_at_exit():
                if at_exit and not failed and "torch.distributed" in sys.modules:
                    try:
                        write(at_exit)
                    except Exception:
                        pass
            atexit.register(dump_at_exit)
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
  const std::string fr = attempt_dir + "/flight_recorder/";
  return {attempt_dir,       fr + "rank",      fr + "request_",
          fr + "asked_rank", fr + "exit_rank", attempt_dir + "/.pyhooks"};
}

EnvPairs debug_hook_env(const DebugHookPaths& p, const DebugHookOptions& o, int node_rank, int rank,
                        const std::vector<std::string>& base_env) {
  EnvPairs env;
  if (!o.flight_recorder) return env;
  const auto unset = [&](const char* n) { return !find_var(base_env, n); };
  if (!user_set_fr(base_env)) env.emplace_back("TORCH_FR_BUFFER_SIZE", std::to_string(o.fr_buffer));
  if (!user_fr_off(base_env)) {
    if (unset("TORCH_NCCL_DUMP_ON_TIMEOUT")) env.emplace_back("TORCH_NCCL_DUMP_ON_TIMEOUT", "1");
    // Each collective's GPU time in the Flight Recorder: how a rank whose GPU is late is found (one more
    // CUDA event per collective; its cost on the step time is in bench/results/stragglers.md).
    if (unset("TORCH_NCCL_ENABLE_TIMING")) env.emplace_back("TORCH_NCCL_ENABLE_TIMING", "1");
    if (unset("TORCH_FR_DUMP_TEMP_FILE") && unset("TORCH_NCCL_DEBUG_INFO_TEMP_FILE"))
      env.emplace_back("TORCH_FR_DUMP_TEMP_FILE", p.fr_prefix);
    env.emplace_back("DISTDOCTOR_FR_REQUEST", fr_request_path(p, o, rank, base_env));
    env.emplace_back("DISTDOCTOR_FR_DUMP", p.asked_prefix + std::to_string(rank));
    env.emplace_back("DISTDOCTOR_FR_EXIT", p.exit_prefix + std::to_string(rank));
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

std::string fr_request_path(const DebugHookPaths& p, const DebugHookOptions& o, int rank,
                            const std::vector<std::string>& base_env) {
  if (!o.flight_recorder || user_fr_off(base_env)) return "";
  return p.request_prefix + std::to_string(rank) + ".fifo";
}

std::string fr_asked_path(const DebugHookPaths& p, const DebugHookOptions& o, int rank,
                          const std::vector<std::string>& base_env) {
  return fr_request_path(p, o, rank, base_env).empty() ? "" : p.asked_prefix + std::to_string(rank);
}

std::string fr_exit_path(const DebugHookPaths& p, const DebugHookOptions& o, int rank,
                         const std::vector<std::string>& base_env) {
  return fr_request_path(p, o, rank, base_env).empty() ? "" : p.exit_prefix + std::to_string(rank);
}

std::string make_fr_request_fifo(const std::string& path, probe::Fs& fs) {
  if (path.empty()) return "";
  // One left from an earlier run under the same job id is replaced.
  if (const Status made = fs.make_fifo(path, 0600); !made) return made.error().message();
  return "";
}

Status write_debug_hooks(const DebugHookPaths& p, probe::Fs& fs) {
  // The hook folder is the owner's alone (0700) and the file is replaced whole, never through a link: what
  // the job's Python runs at start-up is no one else's to change, whatever the umask.
  const std::pair<std::string, mode_t> folders[] = {
      {p.site_dir, 0700}, {p.dir + "/flight_recorder", 0755}, {p.dir + "/stacks", 0755}};
  for (const auto& [d, mode] : folders)
    if (auto st = fs.make_dir(d, mode, /*own=*/true); !st) return st;
  return fs.write_atomically(p.site_dir + "/sitecustomize.py", kSiteCustomize,
                             {.mode = 0600, .symlinks = Symlinks::refuse});
}

void note_stack_request(const std::string& stack_file, probe::Fs& fs) {
  // The hook's own file, never a link's target nor a FIFO; nothing when it is not there.
  (void)fs.append(stack_file, std::string(kRequest) + "\n", {.create = false});
}

std::vector<int> stack_hook_pids(const std::string& text) {
  std::vector<int> pids;
  const std::string_view marker = logs::kStackHookMarker;  // the hook's first line (kSiteCustomize writes it)
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
  for (const std::string_view m : {logs::kStackHookMarker, std::string_view(kRequest)}) {
    size_t k = text.rfind(m);
    if (k != std::string::npos) {
      size_t nl = text.find('\n', k);
      from = std::max(from, nl == std::string::npos ? text.size() : nl + 1);
    }
  }
  return text.substr(from);
}

std::string answered_stack(const std::string& text) {
  const std::string dump = last_stack_dump(text);
  if (dump.find("(most recent call first)") == std::string::npos) return "";
  // Each thread's block starts with "Thread 0x..." or "Current thread 0x..."; the hook's own thread (waiting
  // for a Flight Recorder request) is launch's, not the job's: left out.
  std::string kept, block;
  auto flush = [&] {
    if (block.find("/sitecustomize.py\", line") == std::string::npos ||
        block.find(" in serve\n") == std::string::npos)
      kept += block;
    block.clear();
  };
  for (size_t p = 0; p < dump.size();) {
    size_t nl = dump.find('\n', p);
    nl = nl == std::string::npos ? dump.size() : nl + 1;
    const std::string_view line(dump.data() + p, nl - p);
    if (line.starts_with("Thread 0x") || line.starts_with("Current thread 0x")) flush();
    block.append(line);
    p = nl;
  }
  flush();
  return kept;
}

std::string read_stack_file(const std::string& path) {
  probe::ReadLimits lim;
  lim.max_bytes = 4u << 20;
  lim.deadline = std::chrono::milliseconds(500);
  auto t = probe::read_regular_file(path, lim);
  return t ? t->text : "";
}

}  // namespace dd::launch
