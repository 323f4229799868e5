// Layout, preflight, plan and worker command lines of a collective run: decisions from options and facts.
#include "comm/run/run_setup.h"

#include "comm/run/comm_finding.h"
#include "comm/run/own_gpu.h"
#include "comm/run/worker.h"
#include "nccl/error_causes.h"
#include "report/comm_ids.h"
#include "rules/engine_choice.h"

namespace dd::comm {

namespace {

const std::string* env_of(const probe::NodeFacts& f, const std::string& name) {
  auto it = f.env.find(name);
  return it == f.env.end() ? nullptr : &it->second;
}

// `text` with every "{rank}" replaced by the worker's first rank.
std::string with_rank(std::string text, int rank) {
  for (size_t p; (p = text.find("{rank}")) != std::string::npos;) text.replace(p, 6, std::to_string(rank));
  return text;
}

std::vector<std::string> worker_argv(const RunOptions& opt, const std::vector<int>& ranks,
                                     const std::string& plan_path, const std::string& self_exe) {
  std::vector<std::string> argv;
  for (const std::string& a : opt.wrap) argv.push_back(with_rank(a, ranks[0]));
  const std::string& exe = opt.self_exe.empty() ? self_exe : opt.self_exe;
  std::string rank_list;
  for (int r : ranks) rank_list += (rank_list.empty() ? "" : ",") + std::to_string(r);
  for (const std::string& a : {exe, std::string(kWorkerCommand), std::string(kAsWorkerFlag), plan_path,
                               std::string(kWorkerRanksFlag), rank_list})
    argv.push_back(a);
  if (argv[0].find('/') == std::string::npos) argv.insert(argv.begin(), "/usr/bin/env");
  return argv;
}

}  // namespace

int local_rank_count(const RunOptions& opt, const probe::NodeFacts& facts) {
  return opt.nproc > 0 ? opt.nproc
                       : (opt.engine == rules::EngineKind::nccl ? rules::visible_gpu_count(facts) : 2);
}

RunLayout run_layout(const RunOptions& opt, const probe::NodeFacts& facts) {
  RunLayout l;
  const int nlocal = local_rank_count(opt, facts);
  l.world = opt.world > 0 ? opt.world : nlocal;
  for (int i = 0; i < nlocal; ++i) l.local.push_back(opt.first_rank + i);
  if (opt.threads && !l.local.empty())
    l.groups.push_back(l.local);
  else
    for (int r : l.local) l.groups.push_back({r});
  return l;
}

std::optional<report::Finding> layout_problem(const RunOptions& opt, const RunLayout& l,
                                              const probe::NodeFacts& facts) {
  const int nlocal = int(l.local.size());
  if (nlocal <= 0 || opt.first_rank < 0 || opt.first_rank + nlocal > l.world)
    return comm_failure(report::comm_id::kGpuNone, "No GPU visible for the NCCL collective test", {},
                        "Run on a GPU node, or use --engine gloo.");
  if (opt.engine != rules::EngineKind::nccl || !facts.cuda.visible_devices_set) return std::nullopt;
  const int visible = rules::visible_gpu_count(facts);
  int need = 0;
  for (int i = 0; i < nlocal; ++i)
    need = std::max(need, 1 + (i < int(opt.devices.size()) ? opt.devices[i] : i));
  if (need <= visible) return std::nullopt;
  return comm_failure(report::comm_id::kGpuTooFew,
                      std::to_string(nlocal) + " ranks need " + std::to_string(need) +
                          " GPUs but CUDA_VISIBLE_DEVICES shows " + std::to_string(visible),
                      {"CUDA_VISIBLE_DEVICES=" + facts.cuda.visible_devices},
                      nccl::error_cause(report::comm_id::kGpuTooFew).fix);
}

Plan make_plan(const RunOptions& opt, const RunLayout& l, const probe::NodeFacts& facts,
               const std::string& run_dir) {
  Plan plan;
  plan.run = opt;
  plan.run.store_token.clear();  // the token travels in the environment, never in a file
  if (plan.run.gloo_iface.empty())
    if (const std::string* iface = env_of(facts, "GLOO_SOCKET_IFNAME")) plan.run.gloo_iface = *iface;
  plan.world = l.world;
  plan.devices.assign(l.world, 0);  // by global rank; this node's ranks use local devices 0..nlocal-1
  for (size_t i = 0; i < l.local.size(); ++i)
    plan.devices[l.local[i]] = i < opt.devices.size() ? opt.devices[i] : int(i);
  plan.store_dir = run_dir + "/store";
  if (facts.cuda.visible_devices_set) plan.cuda_visible_devices = facts.cuda.visible_devices;
  plan.own_gpu = !own_gpu_values(opt, l, facts).empty();
  return plan;
}

std::vector<process::WorkerSpec> worker_specs(const RunOptions& opt, const RunLayout& l,
                                              const probe::NodeFacts& facts, const std::string& run_dir,
                                              const std::string& plan_path, const std::string& self_exe) {
  std::vector<process::WorkerSpec> specs;
  const std::vector<std::string> own_gpu = own_gpu_values(opt, l, facts);
  for (size_t w = 0; w < l.groups.size(); ++w) {
    process::WorkerSpec s;
    s.argv = worker_argv(opt, l.groups[w], plan_path, self_exe);
    s.log_path = run_dir + "/worker." + std::to_string(w) + ".log";
    // The kernel kills the worker when the thread that started it ends (the run waits for its workers first),
    // also when this process is killed before its orphan guard learned of every worker (a TERM 3 s into a
    // 200-rank start left 91 workers spinning).
    s.die_with_parent = true;
    if (opt.engine == rules::EngineKind::nccl && opt.capture_nccl_log) {
      if (!env_of(facts, "NCCL_DEBUG")) s.env.push_back({"NCCL_DEBUG", "INFO"});
      if (!env_of(facts, "NCCL_DEBUG_SUBSYS")) s.env.push_back({"NCCL_DEBUG_SUBSYS", "INIT,NET,GRAPH,ENV"});
      s.env.push_back({"NCCL_DEBUG_FILE", run_dir + "/nccl." + std::to_string(w) + ".%p.log"});
    }
    // "{rank}" in a value is the worker's first rank (e.g. NCCL_HOSTID=fake{rank}, see --fake-hosts).
    for (const auto& [k, v] : opt.env) s.env.push_back({k, with_rank(v, l.groups[w][0])});
    if (!opt.store_token.empty()) s.env.push_back({"DD_STORE_TOKEN", opt.store_token});
    if (w < own_gpu.size()) s.env.push_back({"CUDA_VISIBLE_DEVICES", own_gpu[w]});
    specs.push_back(std::move(s));
  }
  return specs;
}

}  // namespace dd::comm
