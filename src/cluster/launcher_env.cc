// Launcher detection over an env map. Order matters: torchrun inside srun, and mpirun inside a Slurm
// allocation, both inherit SLURM_* variables that describe the outer step, so the innermost launcher wins.
#include "cluster/launcher_env.h"

#include <fmt/format.h>

#include <charconv>

namespace dd::cluster {
namespace {

bool parse_int(const std::string& s, int* v) {
  // Slurm writes counts like "4(x2)": take the leading integer.
  const char* b = s.data();
  const char* e = s.data() + s.size();
  auto [p, ec] = std::from_chars(b, e, *v);
  return ec == std::errc() && p != b;
}

// First variable of the list that is set and holds an integer.
Sourced take(const EnvMap& env, std::initializer_list<const char*> names, LauncherInfo* li) {
  for (const char* n : names) {
    auto it = env.find(n);
    if (it == env.end()) continue;
    int v = 0;
    if (parse_int(it->second, &v) && v >= 0) return Sourced{v, n};
    li->errors.push_back(fmt::format("{}={} is not a number", n, it->second));
  }
  return {};
}

const std::string* get(const EnvMap& env, const char* n) {
  auto it = env.find(n);
  return it == env.end() || it->second.empty() ? nullptr : &it->second;
}

void take_job_id(const EnvMap& env, std::initializer_list<const char*> names, LauncherInfo* li) {
  for (const char* n : names)
    if (auto* v = get(env, n)) {
      li->job_id = *v;
      li->job_id_source = n;
      if (std::string(n) == "SLURM_JOB_ID")
        if (auto* step = get(env, "SLURM_STEP_ID")) li->job_id += "." + *step;
      return;
    }
}

}  // namespace

namespace {

void read_torchrun(const EnvMap& env, LauncherInfo& li) {
  li.launcher = "torchrun";
  li.rank = take(env, {"RANK"}, &li);
  li.world_size = take(env, {"WORLD_SIZE"}, &li);
  li.local_rank = take(env, {"LOCAL_RANK"}, &li);
  li.local_world_size = take(env, {"LOCAL_WORLD_SIZE"}, &li);
  li.node_rank = take(env, {"GROUP_RANK", "NODE_RANK"}, &li);
  li.nnodes = take(env, {"GROUP_WORLD_SIZE", "NNODES"}, &li);
  take_job_id(env, {"TORCHELASTIC_RUN_ID", "SLURM_JOB_ID"}, &li);
}

void read_openmpi(const EnvMap& env, LauncherInfo& li) {
  li.launcher = "openmpi";
  li.rank = take(env, {"OMPI_COMM_WORLD_RANK"}, &li);
  li.world_size = take(env, {"OMPI_COMM_WORLD_SIZE"}, &li);
  li.local_rank = take(env, {"OMPI_COMM_WORLD_LOCAL_RANK"}, &li);
  li.local_world_size = take(env, {"OMPI_COMM_WORLD_LOCAL_SIZE"}, &li);
  take_job_id(env, {"OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE", "OMPI_MCA_orte_ess_jobid"}, &li);
}

void read_pmi(const EnvMap& env, LauncherInfo& li) {
  li.launcher = "pmi";
  li.rank = take(env, {"PMI_RANK", "PMIX_RANK"}, &li);
  li.world_size = take(env, {"PMI_SIZE", "MPI_WORLD_SIZE", "SLURM_NTASKS"}, &li);
  li.local_rank = take(env, {"MPI_LOCALRANKID", "SLURM_LOCALID"}, &li);
  li.local_world_size = take(env, {"MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}, &li);
  li.node_rank = take(env, {"SLURM_NODEID"}, &li);
  take_job_id(env, {"PMIX_NAMESPACE", "PMI_KVSNAME", "SLURM_JOB_ID"}, &li);
}

void read_slurm(const EnvMap& env, LauncherInfo& li) {
  li.launcher = "slurm";
  li.rank = take(env, {"SLURM_PROCID"}, &li);
  li.world_size = take(env, {"SLURM_NTASKS", "SLURM_NPROCS"}, &li);
  li.local_rank = take(env, {"SLURM_LOCALID"}, &li);
  li.local_world_size = take(env, {"SLURM_NTASKS_PER_NODE"}, &li);
  li.node_rank = take(env, {"SLURM_NODEID"}, &li);
  take_job_id(env, {"SLURM_JOB_ID"}, &li);
}

// What every launcher shares: node count and list from Slurm, MASTER_ADDR/MASTER_PORT.
void read_common(const EnvMap& env, LauncherInfo& li) {
  if (li.launcher != "torchrun" && !li.nnodes.known())
    li.nnodes = take(env, {"SLURM_NNODES", "SLURM_JOB_NUM_NODES"}, &li);
  // Slurm's node list names rank 0's node first (block distribution); used as the meeting point.
  for (const char* n : {"SLURM_STEP_NODELIST", "SLURM_NODELIST", "SLURM_JOB_NODELIST"}) {
    auto* v = get(env, n);
    if (!v) continue;
    std::string err;
    if (!expand_hostlist(*v, &li.nodelist, &err)) li.errors.push_back(fmt::format("{}={}: {}", n, *v, err));
    break;
  }
  if (auto* a = get(env, "MASTER_ADDR")) {
    li.master_addr = *a;
    li.master_addr_source = "MASTER_ADDR";
  } else if (!li.nodelist.empty() && (li.launcher == "slurm" || li.launcher == "pmi")) {
    li.master_addr = li.nodelist.front();
    li.master_addr_source = "first host of SLURM_NODELIST";
  }
  Sourced port = take(env, {"MASTER_PORT"}, &li);
  if (port.known() && port.value > 0 && port.value < 65536) {
    li.master_port = port.value;
    li.master_port_source = port.source;
  }
  if (!li.rank.known()) li.errors.push_back("rank not found in the launcher's variables");
  if (!li.world_size.known()) li.errors.push_back("world size not found in the launcher's variables");
}

}  // namespace

LauncherInfo detect_launcher(const EnvMap& env) {
  LauncherInfo li;
  bool slurm_step = get(env, "SLURM_PROCID") && (get(env, "SLURM_STEP_ID") || get(env, "SLURM_STEPID"));
  if (get(env, "RANK") && get(env, "WORLD_SIZE"))
    read_torchrun(env, li);
  else if (get(env, "OMPI_COMM_WORLD_RANK"))
    read_openmpi(env, li);
  else if (get(env, "PMI_RANK") || get(env, "PMIX_RANK"))
    read_pmi(env, li);
  else if (slurm_step)
    read_slurm(env, li);
  else
    return li;
  read_common(env, li);
  return li;
}

std::vector<std::string> LauncherInfo::notes() const {
  std::vector<std::string> out;
  if (!detected()) return out;
  std::string line = "launcher " + launcher + ":";
  auto add = [&](const char* what, const Sourced& s) {
    if (s.known()) line += fmt::format(" {}={} from {};", what, s.value, s.source);
  };
  add("rank", rank);
  add("world_size", world_size);
  add("local_rank", local_rank);
  add("local_world_size", local_world_size);
  add("node_rank", node_rank);
  add("nnodes", nnodes);
  if (!master_addr.empty()) line += fmt::format(" master={} from {};", master_addr, master_addr_source);
  if (master_port > 0) line += fmt::format(" port={} from {};", master_port, master_port_source);
  if (!job_id.empty()) line += fmt::format(" job={} from {};", job_id, job_id_source);
  if (line.back() == ';') line.pop_back();
  out.push_back(line);
  for (const auto& e : errors) out.push_back("launcher: " + e);
  return out;
}

}  // namespace dd::cluster
