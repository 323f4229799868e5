// Runs all probes: the risky ones (NVML, CUDA driver, every libnccl, name resolution) start first as
// children with deadlines, the in-process ones (env, network, InfiniBand, system) run meanwhile, then the
// children's answers are folded in. A probe that fails records an error in probe_errors and leaves defaults.
#include "probe/collect.h"

#include <time.h>

#include <cstdio>
#include <cstdlib>

#include "probe/child.h"
#include "probe/cuda_probe.h"
#include "probe/env_probe.h"
#include "probe/fs.h"
#include "probe/gpu_probe.h"
#include "probe/host_probe.h"
#include "probe/ib_probe.h"
#include "probe/nccl_probe.h"
#include "probe/net_probe.h"
#include "probe/system_probe.h"

namespace dd::probe {
namespace {

constexpr int kHostDeadlineMs = 2000;  // getaddrinfo(hostname) may wait on DNS
constexpr int kGpuDeadlineMs = 5000;   // nvmlInit without persistence mode can take seconds on big nodes
constexpr int kCudaDeadlineMs = 2000;  // cuInit
constexpr int kNcclDeadlineMs = 2000;  // dlopen + ncclGetVersion

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
    out = nlohmann::json::parse(*a).get<T>();
    return true;
  } catch (const std::exception& e) {
    *err = std::string("unreadable answer: ") + e.what();
    return false;
  }
}

}  // namespace

NodeFacts collect_node_facts(const ProbeOptions& opt) {
  const int64_t t0 = now_ms();
  auto fs = make_real_fs();
  NodeFacts f;
  const EnvMap env = read_environment();
  const std::vector<NcclCandidate> cands = find_nccl_candidates(*fs, env, opt.nccl_lib);

  Children kids;
  const size_t host_i =
      kids.start([&] { return nlohmann::json(probe_host(*fs, true)).dump(); }, kHostDeadlineMs);
  size_t gpu_i = SIZE_MAX, cuda_i = SIZE_MAX;
  if (!opt.skip_gpu) {
    gpu_i = kids.start([&] { return nlohmann::json(probe_gpu(*fs)).dump(); }, kGpuDeadlineMs);
    if (opt.cuda_init || env.count("CUDA_VISIBLE_DEVICES"))
      cuda_i = kids.start(cuda_count_child, kCudaDeadlineMs);
  }
  const size_t loader_i = kids.start(nccl_loader_child, kNcclDeadlineMs);
  std::vector<size_t> lib_i;
  for (const auto& c : cands)
    lib_i.push_back(kids.start([&c] { return nccl_version_child(c.path); }, kNcclDeadlineMs));

  // In-process probes while the children work.
  f.env = filter_env(env);
  f.cuda = cuda_env_facts(env);
  f.nccl.settings = nccl_settings(*fs, env, &f.probe_errors);
  f.net = probe_net(*fs, &f.probe_errors);
  f.ib = probe_ib(*fs, &f.probe_errors);
  f.system = probe_system(*fs, &f.probe_errors);

  const int64_t t_local = now_ms() - t0;
  auto ans = kids.wait();
  if (const char* t = std::getenv("DISTDOCTOR_PROBE_TIMING"); t && *t && *t != '0') {
    const auto& el = kids.elapsed_ms();
    std::string line =
        "probe timing (ms): in-process " + std::to_string(t_local) + ", host " + std::to_string(el[host_i]);
    if (gpu_i != SIZE_MAX)
      line += ", nvml " + std::to_string(el[gpu_i]) +
              (cuda_i == SIZE_MAX ? ", cuda skipped" : ", cuda " + std::to_string(el[cuda_i]));
    line += ", nccl loader " + std::to_string(el[loader_i]);
    for (size_t k = 0; k < cands.size(); ++k)
      line += ", " + cands[k].path + " " + std::to_string(el[lib_i[k]]);
    std::fprintf(stderr, "%s, total %lld\n", line.c_str(), static_cast<long long>(now_ms() - t0));
  }
  std::string err;
  if (!parse_answer(ans[host_i], f.host, &err)) {
    f.host = probe_host(*fs, false);
    f.probe_errors.push_back("host: resolving the hostname: " + err);
  }
  if (opt.skip_gpu) {
    f.gpu.nvml_error = "GPU probes skipped";
  } else {
    if (!parse_answer(ans[gpu_i], f.gpu, &err)) f.gpu.nvml_error = "NVML probe " + err;
    if (cuda_i != SIZE_MAX)
      apply_cuda_answer(ans[cuda_i], f.cuda);
    else
      f.cuda.init_probed = false;
  }

  NcclLib loader;
  apply_nccl_answer(ans[loader_i], loader);
  std::string loader_real;
  if (!loader.path.empty()) {
    auto r = fs->realpath(loader.path);
    loader_real = r ? *r : loader.path;
  } else if (!ans[loader_i].ok()) {  // crashed or hung while loading: say which file by the loader's rules
    loader_real = infer_loader_choice(*fs, env);
    f.probe_errors.push_back("nccl: loading libnccl.so.2 as a job would " + ans[loader_i].error().message() +
                             (loader_real.empty() ? "" : "; the loader's choice is " + loader_real));
  }
  f.nccl.loader_choice = loader_real;
  for (size_t k = 0; k < cands.size(); ++k) {
    NcclLib l;
    l.path = cands[k].path;
    l.source = cands[k].source;
    if (!loader_real.empty() && l.path == loader_real && l.source != "--nccl-lib") l.source = "loader";
    apply_nccl_answer(ans[lib_i[k]], l);
    f.nccl.libs.push_back(std::move(l));
  }
  if (!loader_real.empty()) {
    bool known = false;
    for (const auto& l : f.nccl.libs) known = known || l.path == loader_real;
    if (!known) {  // found only by the loader (e.g. through a directory in /etc/ld.so.conf.d we did not scan)
      loader.path = loader_real;
      loader.source = "loader";
      f.nccl.libs.insert(f.nccl.libs.begin() + (opt.nccl_lib.empty() ? 0 : 1), std::move(loader));
    }
  }
  return f;
}

}  // namespace dd::probe
