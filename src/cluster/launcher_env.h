// Launcher detection: pure functions over an environment map that tell which launcher started this process
// (Slurm, OpenMPI, MPICH/Intel MPI/PMIx, torchrun/Kubernetes) and where rank, size and master came from.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "probe/env_probe.h"

namespace dd::cluster {

using EnvMap = probe::EnvMap;  // the whole process environment, as the env probe read it

// A value read from the environment, with the variable it came from ("" = not found).
struct Sourced {
  int value = -1;
  std::string source;
  bool known() const { return !source.empty(); }
};

struct LauncherInfo {
  std::string launcher;  // "slurm", "openmpi", "pmi", "torchrun", "" = none
  Sourced rank, world_size, local_rank, local_world_size, node_rank, nnodes;
  std::string master_addr, master_addr_source;  // host of rank 0, if the launcher says
  int master_port = -1;
  std::string master_port_source;
  std::vector<std::string> nodelist;  // expanded SLURM_NODELIST (first = rank 0's node)
  std::string job_id, job_id_source;  // stable across the ranks of one job
  std::vector<std::string> errors;    // unparsable values ("SLURM_NODELIST=gpu[1-: unbalanced bracket")

  bool detected() const { return !launcher.empty(); }
  // "rank=3 from OMPI_COMM_WORLD_RANK" lines for the report notes.
  std::vector<std::string> notes() const;
};

// Reads the launcher variables. MASTER_ADDR/MASTER_PORT are taken from any launcher when set.
LauncherInfo detect_launcher(const EnvMap& env);

// Expands a Slurm hostlist: "gpu[01-04,07],cpu[1-2]" -> gpu01 gpu02 gpu03 gpu04 gpu07 cpu1 cpu2.
// Keeps zero padding, supports several bracket groups per name ("r[1-2]n[1-2]"). Error on malformed input.
bool expand_hostlist(const std::string& list, std::vector<std::string>* out, std::string* error);

}  // namespace dd::cluster
