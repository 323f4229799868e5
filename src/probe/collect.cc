// Runs all probes: the risky ones (NVML, CUDA driver, every libnccl, name resolution) start first as
// children with deadlines, the in-process ones (env, network, InfiniBand, system) run meanwhile, then the
// children's answers are folded in. A probe that fails records an error in probe_errors and leaves defaults.
#include "probe/collect.h"

#include <time.h>

#include <cstdio>

#include "common/json_limits.h"
#include "common/safe_text.h"
#include "probe/cuda_probe.h"
#include "probe/fs.h"
#include "probe/gpu_probe.h"
#include "probe/host_probe.h"
#include "probe/ib_probe.h"
#include "probe/nccl_probe.h"
#include "probe/net_probe.h"
#include "probe/proc_ids.h"
#include "probe/rdma_userspace.h"
#include "probe/system_probe.h"
#include "probe/tool_env.h"
#include "process/child.h"

namespace dd::probe {
namespace {

constexpr int kHostDeadlineMs = 2000;  // getaddrinfo(hostname) may wait on DNS
constexpr int kGpuDeadlineMs = 5000;   // nvmlInit without persistence mode can take seconds on big nodes
constexpr int kCudaDeadlineMs = 2000;  // cuInit
constexpr int kNcclDeadlineMs = 2000;  // dlopen + ncclGetVersion
constexpr size_t kNone = SIZE_MAX;

int64_t now_ms() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

template <typename T>
bool parse_answer(const Result<std::string>& a, T& out, std::string* err) {
  if (!a) {
    *err = a.error().message();
    return false;
  }
  try {
    out = dd::parse_json(*a).get<T>();
    return true;
  } catch (const std::exception& e) {
    *err = std::string("unreadable answer: ") + e.what();
    return false;
  }
}

// Which child answers which probe (kNone: not started).
struct ChildSlots {
  size_t host = kNone, gpu = kNone, cuda = kNone, loader = kNone;
  std::vector<size_t> libs;  // one per NCCL candidate
};

ChildSlots start_children(process::Children& kids, const Fs& fs, const EnvMap& env, const ProbeOptions& opt,
                          const std::vector<NcclCandidate>& cands) {
  ChildSlots s;
  s.host = kids.start([&] { return json_text(nlohmann::json(probe_host(fs, env, true))); }, kHostDeadlineMs);
  if (!opt.skip_gpu) {
    s.gpu = kids.start([&] { return json_text(nlohmann::json(probe_gpu(fs))); }, kGpuDeadlineMs);
    if (opt.cuda_init)  // about 0.6 s on 4x H100: CUDA_VISIBLE_DEVICES is checked against NVML's GPUs instead
      s.cuda = kids.start(cuda_count_child, kCudaDeadlineMs);
  }
  s.loader = kids.start(nccl_loader_child, kNcclDeadlineMs);
  for (const auto& c : cands)
    s.libs.push_back(kids.start([&c] { return nccl_version_child(c.path); }, kNcclDeadlineMs));
  return s;
}

// DISTDOCTOR_PROBE_TIMING: one line on stderr with each probe's time.
void print_timing(const process::Children& kids, const ChildSlots& s, const std::vector<NcclCandidate>& cands,
                  int64_t t_local, int64_t t0) {
  const auto& el = kids.elapsed_ms();
  std::string line =
      "probe timing (ms): in-process " + std::to_string(t_local) + ", host " + std::to_string(el[s.host]);
  if (s.gpu != kNone)
    line += ", nvml " + std::to_string(el[s.gpu]) +
            (s.cuda == kNone ? ", cuda skipped" : ", cuda " + std::to_string(el[s.cuda]));
  line += ", nccl loader " + std::to_string(el[s.loader]);
  for (size_t k = 0; k < cands.size(); ++k)
    line += ", " + cands[k].path + " " + std::to_string(el[s.libs[k]]);
  std::fprintf(stderr, "%s, total %lld\n", line.c_str(), static_cast<long long>(now_ms() - t0));
}

void fold_host_and_gpu(const std::vector<Result<std::string>>& ans, const ChildSlots& s, const Fs& fs,
                       const EnvMap& env, const ProbeOptions& opt, NodeFacts& f) {
  std::string err;
  if (!parse_answer(ans[s.host], f.host, &err)) {
    f.host = probe_host(fs, env, false);
    f.probe_errors.push_back("host: resolving the hostname: " + err);
  }
  if (opt.skip_gpu) {
    f.gpu.nvml_error = "GPU probes skipped";
    return;
  }
  if (!parse_answer(ans[s.gpu], f.gpu, &err)) f.gpu.nvml_error = "NVML probe " + err;
  if (s.cuda != kNone)
    apply_cuda_answer(ans[s.cuda], f.cuda);
  else
    f.cuda.init_probed = false;
}

// The file the dynamic loader picks for libnccl.so.2 (resolved), or the loader's rules' guess when the
// loading child crashed or hung.
std::string loader_choice(const Result<std::string>& answer, const Fs& fs, const EnvMap& env, NcclLib& loader,
                          NodeFacts& f) {
  apply_nccl_answer(answer, loader);
  if (!loader.path.empty()) {
    auto r = fs.realpath(loader.path);
    return r ? *r : loader.path;
  }
  if (answer.ok()) return "";
  std::string guess = infer_loader_choice(fs, env);
  f.probe_errors.push_back("nccl: loading libnccl.so.2 as a job would " + answer.error().message() +
                           (guess.empty() ? "" : "; the loader's choice is " + guess));
  return guess;
}

void fold_nccl(const std::vector<Result<std::string>>& ans, const ChildSlots& s, const Fs& fs,
               const EnvMap& env, const ProbeOptions& opt, const std::vector<NcclCandidate>& cands,
               NodeFacts& f) {
  NcclLib loader;
  const std::string loader_real = loader_choice(ans[s.loader], fs, env, loader, f);
  f.nccl.loader_choice = loader_real;
  for (size_t k = 0; k < cands.size(); ++k) {
    NcclLib l;
    l.path = cands[k].path;
    l.source = cands[k].source;
    if (!loader_real.empty() && l.path == loader_real && l.source != "--nccl-lib") l.source = "loader";
    apply_nccl_answer(ans[s.libs[k]], l);
    f.nccl.libs.push_back(std::move(l));
  }
  if (loader_real.empty()) return;
  for (const auto& l : f.nccl.libs)
    if (l.path == loader_real) return;
  // Found only by the loader (e.g. through a directory in /etc/ld.so.conf.d we did not scan).
  loader.path = loader_real;
  loader.source = "loader";
  f.nccl.libs.insert(f.nccl.libs.begin() + (opt.nccl_lib.empty() ? 0 : 1), std::move(loader));
}

// What every process of a cluster run needs about itself: who it is and the job's settings.
NodeFacts collect_identity_facts(const Fs& fs, const EnvMap& env) {
  NodeFacts f;
  f.host = probe_host(fs, env, false);
  f.env = filter_env(env);
  f.nccl.settings = nccl_settings(fs, env, &f.probe_errors);
  return f;
}

}  // namespace

NodeFacts collect_node_facts(const ProbeOptions& opt, const EnvMap& env) {
  const int64_t t0 = now_ms();
  auto fs = make_real_fs();
  if (opt.identity_only) return collect_identity_facts(*fs, env);
  NodeFacts f;
  const std::vector<NcclCandidate> cands = find_nccl_candidates(*fs, env, opt.nccl_lib);
  process::Children kids(tool_env().probe_timing);
  const ChildSlots slots = start_children(kids, *fs, env, opt, cands);

  // In-process probes while the children work.
  f.env = filter_env(env);
  f.cuda = cuda_env_facts(env);
  f.nccl.settings = nccl_settings(*fs, env, &f.probe_errors);
  f.net = probe_net(*fs, &f.probe_errors);
  f.ib = probe_ib(*fs, &f.probe_errors);
  if (!f.ib.devices.empty()) probe_rdma_userspace(*fs, env, f.ib);
  f.system = probe_system(*fs, &f.probe_errors);

  const int64_t t_local = now_ms() - t0;
  auto ans = kids.wait();
  if (tool_env().probe_timing) print_timing(kids, slots, cands, t_local, t0);
  fold_host_and_gpu(ans, slots, *fs, env, opt, f);
  read_process_lineage(*fs, f.host);  // here, not in the host child: the check's own pid and ancestors
  fold_nccl(ans, slots, *fs, env, opt, cands, f);
  return f;
}

NodeFacts collect_node_facts(const ProbeOptions& opt) { return collect_node_facts(opt, read_environment()); }

CudaFacts collect_cuda_facts(const EnvMap& env) {
  CudaFacts f = cuda_env_facts(env);
  process::Children kids(tool_env().probe_timing);
  kids.start(cuda_count_child, kCudaDeadlineMs);
  apply_cuda_answer(kids.wait()[0], f);
  return f;
}

}  // namespace dd::probe
